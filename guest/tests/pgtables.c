// SPDX-License-Identifier: GPL-2.0
/*
 * User-space work that builds, changes and tears down page tables at every
 * level, run in the guest with kpkeys_hardened_pgtables on: each case must
 * simply work. Prints KTAP. Built against the kernel tree's nolibc.
 */
#include <linux/mman.h>

#include "ktap.h"

#define MB		(1UL << 20)
#define NR_CASES	7

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

/* The "NAME: N kB" line of @path, in kB; -1 if it cannot be read. */
static long file_kb(const char *path, const char *name)
{
	static char buf[8192];
	long n, len = strlen(name), kb = -1;
	char *p;
	int fd;

	fd = open(path, O_RDONLY, 0);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	for (p = buf; *p; p++) {
		if ((p == buf || p[-1] == '\n') && !memcmp(p, name, len) &&
		    p[len] == ':') {
			for (p += len + 1; *p == ' ' || *p == '\t'; p++)
				;
			for (kb = 0; *p >= '0' && *p <= '9'; p++)
				kb = kb * 10 + *p - '0';
			break;
		}
	}
	return kb;
}

/*
 * A /proc/meminfo line, in kB; -1 if it cannot be read. vm.stat_refresh
 * first folds the per-CPU vmstat deltas in, so that the figure is exact.
 */
static long meminfo_kb(const char *name)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY, 0);

	if (fd >= 0) {
		write(fd, "1", 1);
		close(fd);
	}
	return file_kb("/proc/meminfo", name);
}

/* A process's page-table bytes, counted in its mm (VmPTE), in kB. */
static long vmpte_kb(pid_t pid)
{
	char path[32] = "/proc/";

	strcpy(path + strlen(path), utoa(pid));
	strcpy(path + strlen(path), "/status");
	return file_kb(path, "VmPTE");
}

/*
 * PageTables, once it holds still: the tables of the processes that
 * earlier cases ran are uncounted when they are freed, after an RCU
 * grace period, which may fall inside the next case's measure. Two
 * equal reads 100 ms apart, within 5 s.
 */
static long settled_kb(const char *name)
{
	long prev = meminfo_kb(name), now = prev;
	int i;

	for (i = 0; i < 50; i++) {
		usleep(100000);
		now = meminfo_kb(name);
		if (now == prev)
			break;
		prev = now;
	}
	return now;
}

/* A fork child that holds its copied tables until *release is closed. */
static pid_t hold_child(int *release)
{
	int fds[2];
	pid_t pid;
	char c;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		read(fds[0], &c, 1);
		exit(0);
	}
	close(fds[0]);
	*release = fds[1];
	return pid;
}

/*
 * NR_PAGETABLE (PageTables) follows a process's page tables, and those
 * that fork copies, which kpkeys_hardened_pgtables accounts once per PMD
 * table, and comes back when both processes are gone. Touching @len bytes
 * once every @step bytes, the parent and then the child must each add at
 * least @want_kb kB of tables, and the child's own count of its tables
 * (VmPTE, which fork's copy also adds once per PMD table) must hold them.
 */
static void check_accounting(int n, const char *name, unsigned long len,
			     unsigned long step, int advice, long want_kb)
{
	long before, parent = -1, child = -1, after = -1, huge = 0, pte = -1;
	const char *why = NULL;
	int release, status;
	unsigned long i;
	char *p, *area;
	pid_t pid;

	before = settled_kb("PageTables");
	/* Twice the length, for an area aligned to it. */
	area = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (before < 0 || area == MAP_FAILED) {
		result(n, 0, name, "no PageTables, or no mmap");
		return;
	}
	p = (char *)(((unsigned long)area + len - 1) & ~(len - 1));
	my_syscall3(__NR_madvise, p, len, advice);
	for (i = 0; i < len; i += step)
		p[i] = 1;
	parent = meminfo_kb("PageTables");
	if (advice == MADV_HUGEPAGE) {
		huge = meminfo_kb("AnonHugePages");
		if (huge < (long)(len >> 10) * 3 / 4) {
			munmap(area, 2 * len);
			printf("ok %d %s # SKIP only %ld kB of huge pages\n",
			       n, name, huge);
			return;
		}
	}
	pid = hold_child(&release);
	if (pid > 0) {
		child = meminfo_kb("PageTables");
		pte = vmpte_kb(pid);
		close(release);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		why = "fork or wait failed";
	else if (parent - before < want_kb)
		why = "the parent's tables are not counted";
	else if (child - parent < want_kb)
		why = "the tables that fork copied are not counted";
	else if (pte < want_kb)
		why = "the child's VmPTE misses the tables that fork copied";
	munmap(area, 2 * len);
	/*
	 * Freed tables may wait for an RCU grace period: wait for them even
	 * after a failure, so that the next case starts from a settled count.
	 */
	for (i = 0; i < 50; i++) {
		after = meminfo_kb("PageTables");
		if (after - before < 64 && before - after < 64)
			break;
		usleep(100000);
	}
	if (!why && i == 50)
		why = "PageTables did not come back after the tables were freed";
	printf("# %s: PageTables kB: %ld before, %ld touched, %ld with a fork child, %ld after; the child's VmPTE %ld kB\n",
	       name, before, parent, child, after, pte);
	result(n, !why, name, why);
}

/* 512 PTE tables: 1 GiB touched once every 2 MiB, in small pages. */
static void case_pagetable_accounting(int n)
{
	check_accounting(n, "pagetable_accounting", 1024 * MB, 2 * MB,
			 MADV_NOHUGEPAGE, 2048 - 64);
}

/*
 * 32 huge pages, each with a PTE table deposited for a later split. The
 * kernel turns THP off in guests of less than 512 MiB: let madvise() ask.
 */
static void case_pagetable_accounting_thp(int n)
{
	int fd = open("/sys/kernel/mm/transparent_hugepage/enabled",
		      O_WRONLY, 0);

	if (fd >= 0) {
		write(fd, "madvise", 7);
		close(fd);
	}
	check_accounting(n, "pagetable_accounting_thp", 64 * MB, 4096,
			 MADV_HUGEPAGE, 128 - 16);
}

int main(void)
{
	printf("KTAP version 1\n1..%d\n", NR_CASES);
	case_mmap_munmap(1);
	case_mprotect(2);
	case_fork(3);
	case_mremap(4);
	case_exec_churn(5);
	case_pagetable_accounting(6);
	case_pagetable_accounting_thp(7);
	return failures ? 1 : 0;
}
