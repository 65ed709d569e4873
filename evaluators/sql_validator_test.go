package evaluators

import "testing"

func TestSQLValidator(t *testing.T) {
	valid := []string{
		"SELECT * FROM users WHERE id = 1;",
		"select name, count(*) from orders o join users u on u.id = o.user_id group by name having count(*) > 2 order by 2 desc limit 10",
		"WITH recent AS (SELECT * FROM orders WHERE created_at > date('now', '-7 days')) SELECT user_id, SUM(total) FROM recent GROUP BY user_id",
		"INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = n + 1 RETURNING *",
		"SELECT * FROM t LIMIT 10 OFFSET 5",
		"SELECT * FROM t WHERE x = $1 AND y = ? AND z = :name",
		"CREATE TABLE a (x INT); INSERT INTO a VALUES (1); SELECT x FROM a",
		"SELECT 'it''s; not a separator' AS s",
		"SELECT 1 /* a comment; with a semicolon */",
		"SELECT id, ROW_NUMBER() OVER (PARTITION BY team ORDER BY score DESC) AS rn FROM players",
		"INSERT INTO t (a, b) VALUES (1, 'x'), (2, 'y')",
		"UPDATE accounts SET balance = balance - 10 WHERE id = 7",
		"DELETE FROM sessions WHERE expires < '2024-01-01'",
		"CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL)",
		"SELECT 1; SELECT 2;",
		"-- the newest users\nSELECT * FROM users ORDER BY created_at DESC",
		"SELECT `order` FROM `my table`",
		"SELECT * FROM no_such_table_anywhere",
	}
	invalid := []string{
		"SELEC * FROM users",
		"SELECT * FROM",
		"SELECT * FROM users WHERE",
		"SELECT (1 + 2 FROM t",
		"INSERT INTO t VALUES (1,",
		"SELECT 1; SELEC 2",
		"The users table has an id column.",
		"",
		"   ",
		"-- only a comment",
		";",
		"```sql\nSELECT 1\n```",
		"SELECT id::text FROM users",
		"SELECT * FROM users WHERE name ILIKE 'a%'",
		"SELECT DATE_SUB(NOW(), INTERVAL 7 DAY)",
		"SELECT TOP 10 * FROM t",
		"SELECT 'unterminated",
	}
	var cases []evalCase
	for _, q := range valid {
		cases = append(cases, evalCase{name: "valid " + q, input: map[string]any{"text": q}, want: Result{"is_valid_sql": true}, pass: passes})
	}
	for _, q := range invalid {
		cases = append(cases, evalCase{name: "invalid " + q, input: map[string]any{"text": q}, want: Result{"is_valid_sql": false}, pass: fails})
	}
	cases = append(cases,
		evalCase{name: "missing text", input: map[string]any{}, errField: "input.text", errMsg: "input.text is required"},
		evalCase{name: "text not a string", input: map[string]any{"text": true}, errField: "input.text", errMsg: "input.text must be a string, got boolean"},
	)
	runCases(t, "sql-validator", cases)
}
