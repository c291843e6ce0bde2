package tpcc

// Statement ids: tpcc-mysql's per-transaction statements (the TPC-C
// specification's clause 2 SQL). Money sent by the client is whole cents
// divided by 100 in SQL, which is exact in DECIMAL and needs no formatting
// on the client; dates are the server's NOW().
const (
	// New-Order
	sNOCustomer = iota
	sNODistrict
	sNOUpdDistrict
	sNOInsOrder
	sNOInsNewOrder
	sNOItem
	sNOStock
	sNOUpdStock
	sNOInsOrderLine
	// Payment
	sPayUpdWarehouse
	sPayWarehouse
	sPayUpdDistrict
	sPayDistrict
	sCountByName // Payment and Order-Status by last name
	sListByName
	sPayCustomer
	sPayCData
	sPayUpdBC
	sPayUpdGC
	sPayInsHistory
	// Order-Status
	sOSCustomer
	sOSOrder
	sOSLines
	// Delivery
	sDelMinNewOrder
	sDelDelNewOrder
	sDelOrderCustomer
	sDelUpdOrder
	sDelUpdLines
	sDelSumLines
	sDelUpdCustomer
	// Stock-Level
	sSLDistrict
	sSLItems
	sSLCount
	numStatements
)

// Statement is one prepared statement of the run.
type Statement struct {
	Name string
	SQL  string
}

// Statements are the run's prepared statements, indexed by statement id.
var Statements = [numStatements]Statement{
	sNOCustomer: {"new_order.customer", "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse" +
		" WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?"},
	sNODistrict:    {"new_order.district", "SELECT d_next_o_id, d_tax FROM district WHERE d_id = ? AND d_w_id = ? FOR UPDATE"},
	sNOUpdDistrict: {"new_order.update_district", "UPDATE district SET d_next_o_id = ? + 1 WHERE d_id = ? AND d_w_id = ?"},
	sNOInsOrder: {"new_order.insert_order", "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)" +
		" VALUES (?, ?, ?, ?, NOW(), ?, ?)"},
	sNOInsNewOrder: {"new_order.insert_new_order", "INSERT INTO new_orders (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)"},
	sNOItem:        {"new_order.item", "SELECT i_price, i_name, i_data FROM item WHERE i_id = ?"},
	sNOStock: {"new_order.stock", "SELECT s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05," +
		" s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10 FROM stock WHERE s_i_id = ? AND s_w_id = ? FOR UPDATE"},
	sNOUpdStock: {"new_order.update_stock", "UPDATE stock SET s_quantity = ? WHERE s_i_id = ? AND s_w_id = ?"},
	sNOInsOrderLine: {"new_order.insert_order_line", "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id," +
		" ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, ?, ? / 100, ?)"},

	sPayUpdWarehouse: {"payment.update_warehouse", "UPDATE warehouse SET w_ytd = w_ytd + ? / 100 WHERE w_id = ?"},
	sPayWarehouse: {"payment.warehouse", "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name" +
		" FROM warehouse WHERE w_id = ?"},
	sPayUpdDistrict: {"payment.update_district", "UPDATE district SET d_ytd = d_ytd + ? / 100 WHERE d_w_id = ? AND d_id = ?"},
	sPayDistrict: {"payment.district", "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name" +
		" FROM district WHERE d_w_id = ? AND d_id = ?"},
	sCountByName: {"customer.count_by_name", "SELECT count(c_id) FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ?"},
	sListByName: {"customer.list_by_name", "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ?" +
		" ORDER BY c_first"},
	sPayCustomer: {"payment.customer", "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip," +
		" c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since FROM customer" +
		" WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE"},
	sPayCData: {"payment.customer_data", "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
	sPayUpdBC: {"payment.update_customer_bc", "UPDATE customer SET c_balance = c_balance - ? / 100, c_data = ?" +
		" WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
	sPayUpdGC: {"payment.update_customer", "UPDATE customer SET c_balance = c_balance - ? / 100" +
		" WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
	sPayInsHistory: {"payment.insert_history", "INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date," +
		" h_amount, h_data) VALUES (?, ?, ?, ?, ?, NOW(), ? / 100, ?)"},

	sOSCustomer: {"order_status.customer", "SELECT c_balance, c_first, c_middle, c_last FROM customer" +
		" WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
	sOSOrder: {"order_status.order", "SELECT o_id, o_entry_d, o_carrier_id FROM orders" +
		" WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? AND o_id = (SELECT MAX(o_id) FROM orders" +
		" WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?)"},
	sOSLines: {"order_status.lines", "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line" +
		" WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"},

	sDelMinNewOrder:   {"delivery.min_new_order", "SELECT MIN(no_o_id) FROM new_orders WHERE no_d_id = ? AND no_w_id = ?"},
	sDelDelNewOrder:   {"delivery.delete_new_order", "DELETE FROM new_orders WHERE no_o_id = ? AND no_d_id = ? AND no_w_id = ?"},
	sDelOrderCustomer: {"delivery.order_customer", "SELECT o_c_id FROM orders WHERE o_id = ? AND o_d_id = ? AND o_w_id = ?"},
	sDelUpdOrder:      {"delivery.update_order", "UPDATE orders SET o_carrier_id = ? WHERE o_id = ? AND o_d_id = ? AND o_w_id = ?"},
	sDelUpdLines: {"delivery.update_lines", "UPDATE order_line SET ol_delivery_d = NOW()" +
		" WHERE ol_o_id = ? AND ol_d_id = ? AND ol_w_id = ?"},
	sDelSumLines: {"delivery.sum_lines", "SELECT SUM(ol_amount) FROM order_line WHERE ol_o_id = ? AND ol_d_id = ? AND ol_w_id = ?"},
	sDelUpdCustomer: {"delivery.update_customer", "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1" +
		" WHERE c_id = ? AND c_d_id = ? AND c_w_id = ?"},

	sSLDistrict: {"stock_level.district", "SELECT d_next_o_id FROM district WHERE d_id = ? AND d_w_id = ?"},
	sSLItems: {"stock_level.items", "SELECT DISTINCT ol_i_id FROM order_line WHERE ol_w_id = ? AND ol_d_id = ?" +
		" AND ol_o_id < ? AND ol_o_id >= ? - 20"},
	sSLCount: {"stock_level.count", "SELECT count(*) FROM stock WHERE s_w_id = ? AND s_i_id = ? AND s_quantity < ?"},
}
