/*
** cancel.c — the flag long core loops poll (see cancel.h).
*/
#include "cancel.h"

#include <stddef.h>

static volatile sig_atomic_t *watched;

void sdb_cancel_watch(volatile sig_atomic_t *flag) { watched = flag; }

bool sdb_cancelled(void) { return watched && *watched; }
