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

/* find returns the slot of word, or an empty slot for it, or SIZE when the table is
   full and word is not in it. */
static unsigned find(const char *word) {
  unsigned h = hash(word);
  for (int probes = 0; probes < SIZE; probes++, h = (h + 1) % SIZE)
    if (!counts[h] || strcmp(words[h], word) == 0)
      return h;
  return SIZE;
}

/* table_add counts word; a new word finding the table full is dropped. */
void table_add(const char *word) { // calls 9
  unsigned h = find(word);
  if (h == SIZE)
    return;
  if (!counts[h]) {
    strncpy(words[h], word, sizeof words[h] - 1); // want 7
    distinct++;
  }
  counts[h]++;
}

int table_distinct(void) { return distinct; }

int table_count(const char *word) { // calls 4
  unsigned h = find(word);
  return h == SIZE ? 0 : counts[h];
}
