// SPDX-License-Identifier: GPL-2.0
/*
 * User-space work that builds, changes and tears down page tables at every
 * level, run in the guest with kpkeys_hardened_pgtables on: each case must
 * simply work. Prints KTAP. Built against the kernel tree's nolibc.
 */
#include <linux/mman.h>

#define MB		(1UL << 20)
#define NR_CASES	5

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

static char *map(unsigned long len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int touch(char *p, unsigned long len, char val)
{
	unsigned long i;

	for (i = 0; i < len; i += 4096)
		p[i] = val;
	for (i = 0; i < len; i += 4096)
		if (p[i] != val)
			return 0;
	return 1;
}

/* Populate and free 64 MB, several times: tables come and go. */
static void case_mmap_munmap(int n)
{
	int i;

	for (i = 0; i < 4; i++) {
		char *p = map(64 * MB, PROT_READ | PROT_WRITE);

		if (!p || !touch(p, 64 * MB, i + 1) || munmap(p, 64 * MB)) {
			result(n, 0, "mmap_munmap", "mmap, write or munmap failed");
			return;
		}
	}
	result(n, 1, "mmap_munmap", NULL);
}

/* Change permissions back and forth: PTEs rewritten in place. */
static void case_mprotect(int n)
{
	char *p = map(4 * MB, PROT_READ | PROT_WRITE), last = 7;
	int i, ok = p && touch(p, 4 * MB, last);

	for (i = 0; ok && i < 8; i++) {
		ok = !my_syscall3(__NR_mprotect, p, 4 * MB, PROT_READ) &&
		     p[4096] == last &&
		     !my_syscall3(__NR_mprotect, p, 4 * MB,
				  PROT_READ | PROT_WRITE) &&
		     touch(p, 4 * MB, ++last);
	}
	result(n, ok, "mprotect", "mprotect or access after it failed");
	if (p)
		munmap(p, 4 * MB);
}

/* Fork: the child's tables are copied write-protected, then COW. */
static void case_fork(int n)
{
	char *p = map(8 * MB, PROT_READ | PROT_WRITE);
	int i, status, ok = p && touch(p, 8 * MB, 1);

	for (i = 0; ok && i < 8; i++) {
		pid_t pid = fork();

		if (pid == 0)
			exit(touch(p, 8 * MB, 2 + i) ? 0 : 1);
		ok = pid > 0 && waitpid(pid, &status, 0) == pid &&
		     WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		     p[0] == 1;
	}
	result(n, ok, "fork_cow", "a child failed, or its writes leaked");
	if (p)
		munmap(p, 8 * MB);
}

/* Move a populated range: entries and whole tables change place. */
static void case_mremap(int n)
{
	char *p = map(8 * MB, PROT_READ | PROT_WRITE), *q;
	int ok = p && touch(p, 8 * MB, 5);

	if (ok) {
		q = (char *)my_syscall5(__NR_mremap, p, 8 * MB, 16 * MB,
					MREMAP_MAYMOVE, 0);
		ok = q != MAP_FAILED && (unsigned long)q < -4095UL &&
		     q[0] == 5 && q[8 * MB - 4096] == 5;
		if (ok)
			munmap(q, 16 * MB);
	}
	result(n, ok, "mremap", "mremap failed or lost data");
}

/* Processes come and go: whole address spaces built and torn down. */
static void case_exec_churn(int n)
{
	int i, status, ok = 1;

	for (i = 0; ok && i < 16; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			char *p = map(2 * MB, PROT_READ | PROT_WRITE);

			exit(p && touch(p, 2 * MB, 3) ? 0 : 1);
		}
		ok = pid > 0 && waitpid(pid, &status, 0) == pid &&
		     WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	result(n, ok, "process_churn", "a short-lived process failed");
}

int main(void)
{
	printf("KTAP version 1\n1..%d\n", NR_CASES);
	case_mmap_munmap(1);
	case_mprotect(2);
	case_fork(3);
	case_mremap(4);
	case_exec_churn(5);
	return failures ? 1 : 0;
}
