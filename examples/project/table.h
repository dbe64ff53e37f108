/* table.h: a tiny open-addressing table of word counts. */
#ifndef TABLE_H
#define TABLE_H
void table_add(const char *word);
int table_distinct(void);
int table_count(const char *word);
#endif
