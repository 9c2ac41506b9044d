// SPDX-License-Identifier: GPL-2.0
/*
 * The page-table pool under memory pressure, run in the guest with
 * kpkeys_hardened_pgtables on: its debugfs listing must agree with its
 * counts; page tables for a few blocks' worth of memory make it grow;
 * once they are freed, vm.drop_caches (which runs every shrinker) must
 * give its empty blocks back but one; and page tables made afterwards
 * must work, from blocks keyed anew. The boots that run this run the
 * protection cases (LKDTM) after it. Prints KTAP.
 */
#include <linux/mman.h>

#include "ktap.h"

#define MB		(1UL << 20)
#define POOL		"/sys/kernel/debug/kpkeys/pgtable_pool"
#define NR_CASES	4
/* 2048 PTE tables, one per 2 MiB touched: four blocks' worth. */
#define GROW_LEN	(4096 * MB)
#define GROW_STEP	(2 * MB)

struct pool {
	long blocks, empty, free;	/* the counts the file starts with */
	long listed, listed_empty, listed_free;	/* summed from the list */
	long bad;	/* block lines whose page list is not their count */
};

/* The number after the first @key in @line, or -1. */
static long field(const char *line, const char *key)
{
	long len = strlen(key), v = 0;
	const char *p;

	for (p = line; *p; p++)
		if (!strncmp(p, key, len))
			break;
	if (!*p)
		return -1;
	for (p += len; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + *p - '0';
	return v;
}

/* How many pages a bitmap list ("0-3,7,9-511") names, or -1. */
static long list_pages(const char *p)
{
	long n = 0, a, b;

	while (*p >= '0' && *p <= '9') {
		for (a = 0; *p >= '0' && *p <= '9'; p++)
			a = a * 10 + *p - '0';
		b = a;
		if (*p == '-')
			for (b = 0, p++; *p >= '0' && *p <= '9'; p++)
				b = b * 10 + *p - '0';
		if (b < a)
			return -1;
		n += b - a + 1;
		if (*p == ',')
			p++;
	}
	return *p ? -1 : n;
}

/* The first @word in @line, or NULL (nolibc has no strstr()). */
static const char *find(const char *line, const char *word)
{
	long len = strlen(word);

	for (; *line; line++)
		if (!strncmp(line, word, len))
			return line;
	return NULL;
}

/* Read the pool's counts and its list of blocks; 0 on success. */
static int read_pool(struct pool *pool)
{
	static char buf[1 << 16];
	long n, got = 0;
	char *line, *end;
	int fd;

	memset(pool, 0, sizeof(*pool));
	pool->blocks = pool->empty = pool->free = -1;
	fd = open(POOL, O_RDONLY, 0);
	if (fd < 0)
		return -1;
	while (got < (long)sizeof(buf) - 1 &&
	       (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(fd);
	/* A listing that fills the buffer may have been cut short. */
	if (got >= (long)sizeof(buf) - 1)
		return -1;
	buf[got] = 0;
	for (line = buf; *line; line = end + 1) {
		end = strchr(line, '\n');
		if (!end)
			break;
		*end = 0;
		if (!strncmp(line, "blocks ", 7))
			pool->blocks = field(line, "blocks ");
		else if (!strncmp(line, "empty_blocks ", 13))
			pool->empty = field(line, "empty_blocks ");
		else if (!strncmp(line, "free_pages ", 11))
			pool->free = field(line, "free_pages ");
		else if (!strncmp(line, "block pfn ", 10)) {
			long free = field(line, " free ");
			const char *pages = find(line, " pages ");

			pool->listed++;
			pool->listed_empty += !!find(line, " empty ");
			pool->listed_free += free;
			/* The free pages, by index, as many as the count says. */
			if (free < 0 || (pages ? list_pages(pages + 7) : 0) != free)
				pool->bad++;
		}
	}
	return pool->blocks < 0 || pool->empty < 0 || pool->free < 0;
}

static void print_pool(const char *name, const char *when, struct pool *p)
{
	printf("# %s: %s: %ld blocks (%ld listed), %ld empty (%ld listed), %ld free pages (%ld listed)\n",
	       name, when, p->blocks, p->listed, p->empty, p->listed_empty,
	       p->free, p->listed_free);
}

/* One PTE table per GROW_STEP of GROW_LEN: map, touch, and keep. */
static char *grow(void)
{
	char *p = mmap(NULL, GROW_LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	unsigned long i;

	if (p == MAP_FAILED)
		return NULL;
	/* Small pages only: a huge page would need no PTE table. */
	my_syscall3(__NR_madvise, p, GROW_LEN, MADV_NOHUGEPAGE);
	for (i = 0; i < GROW_LEN; i += GROW_STEP)
		p[i] = 1;
	return p;
}

/*
 * Freed page tables go back to the pool after an RCU grace period: wait
 * until it has at least @want empty blocks, for up to 5 s.
 */
static void wait_empty(struct pool *pool, long want)
{
	int i;

	for (i = 0; i < 50; i++) {
		if (!read_pool(pool) && pool->empty >= want)
			return;
		usleep(100000);
	}
}

static int drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY, 0);
	int ret;

	if (fd < 0)
		return -1;
	ret = write(fd, "2", 1) == 1 ? 0 : -1;
	close(fd);
	return ret;
}

static const char *listing_agrees(struct pool *p)
{
	if (p->listed != p->blocks)
		return "the listed blocks are not the count";
	if (p->listed_empty != p->empty)
		return "the listed empty blocks are not the count";
	if (p->listed_free != p->free)
		return "the listed free pages are not the count";
	if (p->bad)
		return "a block's list of free pages is not its count";
	return NULL;
}

int main(void)
{
	struct pool before, grown, freed, shrunk, again;
	const char *why;
	char *p;

	printf("KTAP version 1\n1..%d\n", NR_CASES);
	if (read_pool(&before)) {
		printf("# no %s: kpkeys_hardened_pgtables is off, or the pool's listing is unreadable\n",
		       POOL);
		return 1;
	}

	print_pool("listing", "at start", &before);
	why = listing_agrees(&before);
	result(1, !why && before.blocks > 0, "listing",
	       why ?: "the pool has no block");

	why = NULL;
	p = grow();
	if (!p || read_pool(&grown))
		why = "mmap, or reading the pool, failed";
	else if (grown.blocks <= before.blocks)
		why = "the pool did not grow";
	else
		why = listing_agrees(&grown);
	if (p)
		print_pool("grow", "with 2048 more page tables", &grown);
	result(2, !why, "grow", why);

	/*
	 * Once the tables are freed, the blocks the pool grew by are empty;
	 * the shrinker keeps one empty block.
	 */
	why = NULL;
	if (p)
		munmap(p, GROW_LEN);
	wait_empty(&freed, 2);
	print_pool("shrink", "tables freed", &freed);
	if (drop_caches() || read_pool(&shrunk))
		why = "writing vm.drop_caches, or reading the pool, failed";
	else if (freed.empty < 2)
		why = "freed page tables left fewer than 2 blocks empty";
	else if (shrunk.empty > 1)
		why = "the shrinker left more than one empty block";
	else if (shrunk.blocks >= freed.blocks)
		why = "the shrinker gave no block back";
	else
		why = listing_agrees(&shrunk);
	print_pool("shrink", "after vm.drop_caches", &shrunk);
	result(3, !why, "shrink", why);

	/* The pool grows again, with blocks keyed anew. */
	why = NULL;
	p = grow();
	if (!p || read_pool(&again))
		why = "mmap, or reading the pool, failed";
	else if (again.blocks <= shrunk.blocks)
		why = "the pool did not grow again";
	else
		why = listing_agrees(&again);
	if (p) {
		print_pool("regrow", "with 2048 more page tables", &again);
		munmap(p, GROW_LEN);
		wait_empty(&again, 2);
	}
	result(4, !why, "regrow", why);
	return failures ? 1 : 0;
}
