SELECT * FROM t JOIN u ON t.id = u.id WHERE u.x > 10 ORDER BY 1;
