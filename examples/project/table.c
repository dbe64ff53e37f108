/* table.c: the word table (examples/project). */
#include <string.h>
#include "table.h"

#define SIZE 64
static char words[SIZE][32];
static int counts[SIZE];
static int distinct;

static unsigned hash(const char *s) { // calls 13
  unsigned h = 5381;
  while (*s)
    h = h * 33 + (unsigned char)*s++;
  return h % SIZE;
}

void table_add(const char *word) { // calls 9
  unsigned h = hash(word);
  while (counts[h] && strcmp(words[h], word) != 0)
    h = (h + 1) % SIZE;
  if (!counts[h]) {
    strncpy(words[h], word, sizeof words[h] - 1); // want 7
    distinct++;
  }
  counts[h]++;
}

int table_distinct(void) { return distinct; }

int table_count(const char *word) { // calls 4
  unsigned h = hash(word);
  while (counts[h] && strcmp(words[h], word) != 0)
    h = (h + 1) % SIZE;
  return counts[h];
}
