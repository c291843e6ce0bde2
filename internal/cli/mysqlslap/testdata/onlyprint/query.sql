select * from t1;
select count(*) from t1;
