/* sqlite_shell.c: a minimal SQLite shell for bench/corpus.sh. It reads a SQL
 * script on standard input, runs its statements one by one on an in-memory
 * database, prints each result row as the sqlite3 shell's list mode does
 * (columns separated by '|'), and reports a statement's error on standard error
 * and goes on with the next statement, as the shell does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"

static char *read_all(FILE *f, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  size_t k;
  while (buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += k;
    if (n + 1 == cap) {
      cap *= 2;
      buf = realloc(buf, cap);
    }
  }
  if (buf)
    buf[n] = 0;
  *len = n;
  return buf;
}

int main(void) {
  size_t len;
  char *sql = read_all(stdin, &len);
  sqlite3 *db;
  if (!sql || sqlite3_open(":memory:", &db) != SQLITE_OK) {
    fprintf(stderr, "cannot open the database\n");
    return 1;
  }
  const char *tail = sql;
  int errors = 0;
  while (*tail) {
    sqlite3_stmt *st = NULL;
    const char *next = NULL;
    if (sqlite3_prepare_v2(db, tail, -1, &st, &next) != SQLITE_OK) {
      fprintf(stderr, "Error: %s\n", sqlite3_errmsg(db));
      errors++;
      /* skip to the end of the statement */
      const char *semi = strchr(tail, ';');
      if (!semi)
        break;
      tail = semi + 1;
      continue;
    }
    tail = next;
    if (!st)
      continue; /* whitespace or a comment */
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      int n = sqlite3_column_count(st);
      for (int i = 0; i < n; i++) {
        const unsigned char *v = sqlite3_column_text(st, i);
        printf("%s%s", i ? "|" : "", v ? (const char *)v : "");
      }
      putchar('\n');
    }
    if (rc != SQLITE_DONE) {
      fprintf(stderr, "Error: %s\n", sqlite3_errmsg(db));
      errors++;
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  free(sql);
  return errors > 0;
}
