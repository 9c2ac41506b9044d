/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP results for the guest's C tests: one "ok N name" or "not ok N name"
 * line per case, with the reason of a failure on a "#" line after it.
 * Included by each test after nolibc (which the build includes first).
 */
#ifndef GUEST_TESTS_KTAP_H
#define GUEST_TESTS_KTAP_H

static int failures;

static void result(int n, int ok, const char *name, const char *why)
{
	if (ok) {
		printf("ok %d %s\n", n, name);
	} else {
		printf("not ok %d %s\n", n, name);
		printf("# %s: %s\n", name, why);
		failures++;
	}
}

#endif
