package io.eve.tpcw.schema;

import java.util.List;

/**
 * The TPC-W schema (spec v1.8 clause 1, column names as in the UW implementation) for H2: the eight spec
 * tables plus the two shopping-cart tables. Every table has an explicit primary key and no identity
 * column or sequence, as eve-h2 requires; ids of rows created at run time come from the requesting
 * client's id space ({@link io.eve.tpcw.interaction.Ids}). There are no foreign keys (the UW schema has
 * none either); {@code io.eve.tpcw.bench.Invariants} checks the references after a run.
 */
public final class TpcwSchema {
    /** Table names, as H2 stores them (upper case, schema PUBLIC). */
    public static final String CUSTOMER = "CUSTOMER";

    public static final String ADDRESS = "ADDRESS";
    public static final String COUNTRY = "COUNTRY";
    public static final String ORDERS = "ORDERS";
    public static final String ORDER_LINE = "ORDER_LINE";
    public static final String CC_XACTS = "CC_XACTS";
    public static final String ITEM = "ITEM";
    public static final String AUTHOR = "AUTHOR";
    public static final String SHOPPING_CART = "SHOPPING_CART";
    public static final String SHOPPING_CART_LINE = "SHOPPING_CART_LINE";

    /** All ten tables. */
    public static final List<String> TABLES = List.of(
            CUSTOMER, ADDRESS, COUNTRY, ORDERS, ORDER_LINE, CC_XACTS, ITEM, AUTHOR, SHOPPING_CART, SHOPPING_CART_LINE);

    private static final List<String> DDL = List.of(
            "CREATE TABLE country (co_id INT PRIMARY KEY, co_name VARCHAR(50) NOT NULL,"
                    + " co_exchange NUMERIC(12,6) NOT NULL, co_currency VARCHAR(18) NOT NULL)",
            "CREATE TABLE author (a_id INT PRIMARY KEY, a_fname VARCHAR(20), a_lname VARCHAR(40), a_mname VARCHAR(20),"
                    + " a_dob DATE, a_bio VARCHAR(500))",
            "CREATE INDEX author_lname ON author (a_lname)",
            "CREATE TABLE item (i_id INT PRIMARY KEY, i_title VARCHAR(80) NOT NULL, i_a_id INT NOT NULL,"
                    + " i_pub_date DATE, i_publisher VARCHAR(60), i_subject VARCHAR(60) NOT NULL, i_desc VARCHAR(500),"
                    + " i_related1 INT, i_related2 INT, i_related3 INT, i_related4 INT, i_related5 INT,"
                    + " i_thumbnail VARCHAR(40), i_image VARCHAR(40), i_srp NUMERIC(15,2), i_cost NUMERIC(15,2),"
                    + " i_avail DATE, i_stock INT NOT NULL, i_isbn CHAR(13), i_page INT, i_backing VARCHAR(15),"
                    + " i_dimensions VARCHAR(25))",
            "CREATE INDEX item_title ON item (i_title)",
            "CREATE INDEX item_subject_date ON item (i_subject, i_pub_date)",
            "CREATE INDEX item_author ON item (i_a_id)",
            "CREATE TABLE address (addr_id BIGINT PRIMARY KEY, addr_street1 VARCHAR(40), addr_street2 VARCHAR(40),"
                    + " addr_city VARCHAR(30), addr_state VARCHAR(20), addr_zip VARCHAR(10), addr_co_id INT NOT NULL)",
            "CREATE INDEX address_country ON address (addr_co_id)",
            "CREATE TABLE customer (c_id BIGINT PRIMARY KEY, c_uname VARCHAR(40) NOT NULL, c_passwd VARCHAR(40) NOT NULL,"
                    + " c_fname VARCHAR(15), c_lname VARCHAR(15), c_addr_id BIGINT NOT NULL, c_phone VARCHAR(16),"
                    + " c_email VARCHAR(50), c_since DATE, c_last_login DATE, c_login TIMESTAMP,"
                    + " c_expiration TIMESTAMP, c_discount NUMERIC(4,2) NOT NULL, c_balance NUMERIC(15,2),"
                    + " c_ytd_pmt NUMERIC(15,2), c_birthdate DATE, c_data VARCHAR(500))",
            "CREATE INDEX customer_uname ON customer (c_uname)",
            "CREATE INDEX customer_address ON customer (c_addr_id)",
            "CREATE TABLE orders (o_id BIGINT PRIMARY KEY, o_c_id BIGINT NOT NULL, o_date TIMESTAMP NOT NULL,"
                    + " o_sub_total NUMERIC(15,2), o_tax NUMERIC(15,2), o_total NUMERIC(15,2), o_ship_type VARCHAR(10),"
                    + " o_ship_date TIMESTAMP, o_bill_addr_id BIGINT, o_ship_addr_id BIGINT, o_status VARCHAR(15))",
            "CREATE INDEX orders_customer ON orders (o_c_id)",
            "CREATE INDEX orders_date ON orders (o_date, o_id)",
            "CREATE TABLE order_line (ol_o_id BIGINT NOT NULL, ol_id INT NOT NULL, ol_i_id INT NOT NULL,"
                    + " ol_qty INT NOT NULL, ol_discount NUMERIC(4,2), ol_comments VARCHAR(100),"
                    + " PRIMARY KEY (ol_o_id, ol_id))",
            "CREATE INDEX order_line_item ON order_line (ol_i_id)",
            "CREATE TABLE cc_xacts (cx_o_id BIGINT PRIMARY KEY, cx_type VARCHAR(10), cx_num VARCHAR(20),"
                    + " cx_name VARCHAR(31), cx_expire DATE, cx_auth_id CHAR(15), cx_xact_amt NUMERIC(15,2),"
                    + " cx_xact_date TIMESTAMP, cx_co_id INT)",
            "CREATE TABLE shopping_cart (sc_id BIGINT PRIMARY KEY, sc_time TIMESTAMP NOT NULL)",
            "CREATE TABLE shopping_cart_line (scl_sc_id BIGINT NOT NULL, scl_i_id INT NOT NULL, scl_qty INT NOT NULL,"
                    + " PRIMARY KEY (scl_sc_id, scl_i_id))",
            "CREATE INDEX shopping_cart_line_item ON shopping_cart_line (scl_i_id)");

    private TpcwSchema() {}

    /** The DDL statements, in order (tables, then their indexes). */
    public static List<String> ddl() {
        return DDL;
    }

    /** The DDL as an array, for {@code H2State.builder().schema(...)}. */
    public static String[] ddlArray() {
        return DDL.toArray(new String[0]);
    }
}
