/*
** cancel.h — Ctrl-C for loops in core that can run long (reading a saved
** trace, reading a TORCH_TRACE log): the front end points core at the flag
** its SIGINT handler raises, and those loops poll it between lines,
** stopping with an "interrupted" error at the line they reached (what was
** read before it stays, as after any bad line). Core installs no handler
** and never clears the flag: the front end owns both.
*/
#ifndef SDB_CANCEL_H
#define SDB_CANCEL_H

#include <signal.h>
#include <stdbool.h>

/* The flag to watch (NULL: none, the default). */
void sdb_cancel_watch(volatile sig_atomic_t *flag);
/* Is it raised? */
bool sdb_cancelled(void);

#endif
