/*
** pager.h — gdb's pager for long listings at a terminal (pager.c).
*/
#ifndef REPL_PAGER_H
#define REPL_PAGER_H

#include <stdbool.h>

typedef struct repl_session repl_session;

/* Page stdout until repl_pager_end, when s is at a terminal and
** pagination is on; false (nothing changed) otherwise. */
bool repl_pager_begin(repl_session *s);
void repl_pager_end(void);
/* `set pagination`, `set height`, and their `show`. */
void repl_pager_init(void);

#endif
