SELECT name FROM t WHERE id = 2;
