INSERT INTO orders (customer, email, city, amount, placed_at) VALUES ('{name}', '{email}', '{city}', {price:5,500}, '{date}')
SELECT id, customer, email, amount FROM orders WHERE id = {number:1,1000}
SELECT id, customer, email, amount FROM orders WHERE id = {number:1,1000}
SELECT id, customer, email, amount FROM orders WHERE id = {number:1,1000}
