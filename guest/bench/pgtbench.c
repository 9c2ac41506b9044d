// SPDX-License-Identifier: GPL-2.0
/*
 * Page-table micro-benchmarks for make bench, run in the guest.
 *
 *	pgtbench OP RUNS [MIB]
 *
 * After a warm-up run, for each of RUNS runs, prints one line:
 *
 *	kpk-bench: op=OP run=I ops=N ns=T [COUNTER=DELTA ...]
 *
 * T is the time the run's N operations took (CLOCK_MONOTONIC), and each
 * COUNTER=DELTA is how much a line of /sys/kernel/debug/kpkeys/stats
 * grew meanwhile (kpkeys event counters, summed over CPUs; none on a
 * kernel without them). The page-fault benchmarks run pinned to CPU 0
 * and count that CPU's events only, from .../kpkeys/stats_per_cpu (the
 * line then says cpu=0), so that what the other CPU does meanwhile is
 * not charged to the faults. The host takes medians and divides by N.
 *
 * Built against the kernel tree's nolibc, like the guest tests.
 */
#include <linux/mman.h>
#include <linux/time.h>

#define MB		(1UL << 20)
#define PAGE		4096UL
/* The size of the benchmarks' areas: MIB, 64 MiB by default. */
static unsigned long area = 64 * MB;
#define HPAGE		(2 * MB)
#define STATS		"/sys/kernel/debug/kpkeys/stats"
#define STATS_PER_CPU	"/sys/kernel/debug/kpkeys/stats_per_cpu"
#define MAX_STATS	32
#define MAX_CPUS	8

struct stats {
	int nr;
	char name[MAX_STATS][40];
	unsigned long val[MAX_STATS];			/* sum over CPUs */
	unsigned long cpu[MAX_STATS][MAX_CPUS];		/* per CPU */
};

static const char *self;
/* The benchmark running, for error messages. */
static const char *op_name = "";
static void die(const char *what);
/* The CPU the run is pinned to, or -1. */
static int pinned = -1;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	my_syscall2(__NR_clock_gettime, CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int read_file(const char *path, char *buf, int len)
{
	int fd = open(path, O_RDONLY), n, got = 0;

	if (fd < 0)
		return -1;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	return got;
}

/*
 * The counters: "name value" lines of STATS, each value summed over CPUs,
 * or, for a run pinned to a CPU, "name value-on-CPU0 value-on-CPU1 ..."
 * lines of STATS_PER_CPU, read into cpu[]. A kernel without counters has
 * neither file: no stats.
 */
static void read_stats(struct stats *s)
{
	static char buf[16384];
	int per_cpu = pinned >= 0, got;
	char *p = buf;

	s->nr = 0;
	got = read_file(per_cpu ? STATS_PER_CPU : STATS, buf, sizeof(buf));
	if (got <= 0)
		return;
	if (got >= (int)sizeof(buf) - 1)
		die("the kpkeys counters do not fit the buffer");
	while (*p && s->nr < MAX_STATS) {
		int i = 0;

		while (*p == ' ' || *p == '\n')
			p++;
		if (!*p)
			break;
		while (*p && *p != ' ' && i < 39)
			s->name[s->nr][i++] = *p++;
		s->name[s->nr][i] = 0;
		if (per_cpu) {
			for (i = 0; i < MAX_CPUS && *p == ' '; i++)
				s->cpu[s->nr][i] = strtoul(p + 1, &p, 10);
			if (pinned >= i)
				die("no counters for the pinned CPU");
		} else {
			while (*p == ' ')
				p++;
			s->val[s->nr] = strtoul(p, &p, 10);
		}
		while (*p && *p != '\n')
			p++;
		s->nr++;
	}
}

/* Interrupts taken so far: the sum of every number in /proc/interrupts. */
static unsigned long interrupts(void)
{
	static char buf[16384];
	unsigned long sum = 0;
	char *p = buf;

	if (read_file("/proc/interrupts", buf, sizeof(buf)) <= 0)
		die("cannot read /proc/interrupts");
	while (*p) {
		/* Per-line: skip the "NAME:" label, add the numeric columns. */
		char *colon = strchr(p, ':'), *eol = strchr(p, '\n');

		if (!eol)
			eol = p + strlen(p);
		if (colon && colon < eol) {
			p = colon + 1;
			while (p < eol) {
				while (p < eol && *p == ' ')
					p++;
				if (p < eol && *p >= '0' && *p <= '9')
					sum += strtoul(p, &p, 10);
				else
					break;
			}
		}
		p = *eol ? eol + 1 : eol;
	}
	return sum;
}

/*
 * A result line is built whole and written with one write(): nolibc's
 * printf() writes piece by piece, and kernel messages on the same
 * console could land in the middle of a line.
 */
static char line[2048];
static int line_len;

static void add(const char *str)
{
	while (*str && line_len < (int)sizeof(line) - 2)
		line[line_len++] = *str++;
}

static void add_num(unsigned long long v)
{
	char num[24];

	u64toa_r(v, num);
	add(num);
}

static void add_field(const char *key, unsigned long long v)
{
	add(" ");
	add(key);
	add("=");
	add_num(v);
}

/*
 * A counter's growth, signed: on arm64 a count is a load and a store, and
 * one interrupted by preemption can go back; the host refuses a negative
 * one rather than read it as a huge number.
 */
static void add_delta(const char *key, unsigned long after,
		      unsigned long before)
{
	char num[24];

	i64toa_r((long long)(after - before), num);
	add(" ");
	add(key);
	add("=");
	add(num);
}

static void put_line(void)
{
	line[line_len++] = '\n';
	if (write(1, line, line_len) != line_len)
		exit(1);
	line_len = 0;
}

static void die(const char *what)
{
	line_len = 0;
	add("kpk-bench: error: ");
	add(self);
	add(" ");
	add(op_name);
	add(": ");
	add(what);
	put_line();
	exit(1);
}

static void report(const char *op, int run, unsigned long ops,
		   unsigned long long ns, struct stats *a, struct stats *b,
		   long thp_kb)
{
	int i;

	add("kpk-bench: op=");
	add(op);
	add_field("run", run);
	add_field("ops", ops);
	add_field("ns", ns);
	if (pinned >= 0)
		add_field("cpu", pinned);
	if (thp_kb >= 0)
		add_field("thp_kb", thp_kb);
	for (i = 0; i < b->nr && i < a->nr; i++) {
		if (pinned >= 0)
			add_delta(b->name[i], b->cpu[i][pinned],
				  a->cpu[i][pinned]);
		else
			add_delta(b->name[i], b->val[i], a->val[i]);
	}
	put_line();
}

/* How much anonymous memory THP maps, system-wide (/proc/meminfo). */
static long anon_huge_kb(void)
{
	static char buf[8192];
	char *p;

	if (read_file("/proc/meminfo", buf, sizeof(buf)) <= 0)
		die("cannot read /proc/meminfo");
	/* nolibc has no strstr(): look at the start of each line. */
	for (p = buf; *p && strncmp(p, "AnonHugePages:", 14); p++) {
		p = strchr(p, '\n');
		if (!p)
			die("no AnonHugePages in /proc/meminfo: THP not built in");
	}
	if (!*p)
		die("no AnonHugePages in /proc/meminfo: THP not built in");
	p += 14;
	while (*p == ' ')
		p++;
	return strtol(p, NULL, 10);
}

/* Run on @cpu only, and count its events only. */
static void pin(int cpu)
{
	unsigned long mask = 1UL << cpu;

	if (my_syscall3(__NR_sched_setaffinity, 0, sizeof(mask), &mask))
		die("sched_setaffinity");
	pinned = cpu;
}

static char *map_area(unsigned long len, int huge)
{
	/*
	 * Over-allocate so that the area can start on a 2 MiB boundary, and
	 * give back what is left over on either side.
	 */
	char *base = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *p;

	if (base == MAP_FAILED)
		die("mmap");
	p = (char *)(((unsigned long)base + HPAGE - 1) & ~(HPAGE - 1));
	if (p > base)
		munmap(base, p - base);
	if (base + HPAGE > p)
		munmap(p + len, base + HPAGE - p);
	if (my_syscall3(__NR_madvise, p, len,
			huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		die("madvise");
	return p;
}

static void touch(char *p, unsigned long len)
{
	unsigned long i;

	for (i = 0; i < len; i += PAGE)
		p[i] = 1;
}

/*
 * One touch of each page of the area, timed and counted: the faults.
 * Inlined, so that it uses run_once()'s stack frame, which fault_cow has
 * made its parent fault in before the timed part.
 */
static inline __attribute__((always_inline))
void timed_touch(char *p, struct stats *a, struct stats *b,
		 unsigned long long *t0, unsigned long long *t1)
{
	read_stats(a);
	*t0 = now_ns();
	touch(p, area);
	*t1 = now_ns();
	read_stats(b);
}

static void wait_child(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		die("child");
}

/*
 * One run of OP: set up what the run needs outside the timed part, then
 * time @ops operations between two reads of the counters.
 */
static void run_once(const char *op, int run)
{
	struct stats a, b;
	unsigned long long t0, t1;
	unsigned long ops = 1, i;
	long thp_kb = -1;
	char *p = NULL;

	if (!strcmp(op, "fork_exit_4k") || !strcmp(op, "fork_exit_thp")) {
		int huge = !strcmp(op, "fork_exit_thp");

		p = map_area(area, huge);
		touch(p, area);
		/* The THP case is only one if THP maps most of the area. */
		if (huge) {
			thp_kb = anon_huge_kb();
			if (thp_kb < (long)(area / 2 / 1024))
				die("THP did not map the area (AnonHugePages too low)");
		}
		ops = 4;
		read_stats(&a);
		t0 = now_ns();
		for (i = 0; i < ops; i++) {
			pid_t pid = fork();

			if (pid == 0)
				exit(0);
			wait_child(pid);
		}
		t1 = now_ns();
		read_stats(&b);
		munmap(p, area);
	} else if (!strcmp(op, "munmap")) {
		char *areas[4];

		ops = 4;
		for (i = 0; i < ops; i++) {
			areas[i] = map_area(area, 0);
			touch(areas[i], area);
		}
		read_stats(&a);
		t0 = now_ns();
		for (i = 0; i < ops; i++)
			if (munmap(areas[i], area))
				die("munmap");
		t1 = now_ns();
		read_stats(&b);
	} else if (!strcmp(op, "mprotect")) {
		p = map_area(area, 0);
		touch(p, area);
		ops = 32;
		read_stats(&a);
		t0 = now_ns();
		for (i = 0; i < ops; i++)
			if (my_syscall3(__NR_mprotect, p, area, i & 1 ?
					PROT_READ | PROT_WRITE : PROT_READ))
				die("mprotect");
		t1 = now_ns();
		read_stats(&b);
		munmap(p, area);
	} else if (!strcmp(op, "fault")) {
		pin(0);
		/*
		 * A page-fault loop: the pages go (MADV_DONTNEED), the page
		 * tables stay, and every touch faults a page back in.
		 */
		p = map_area(area, 0);
		touch(p, area);
		if (my_syscall3(__NR_madvise, p, area, MADV_DONTNEED))
			die("madvise");
		ops = area / PAGE;
		timed_touch(p, &a, &b, &t0, &t1);
		munmap(p, area);
	} else if (!strcmp(op, "fault_first")) {
		pin(0);
		/* Tables and pages both new: a first touch of the area. */
		p = map_area(area, 0);
		ops = area / PAGE;
		timed_touch(p, &a, &b, &t0, &t1);
		munmap(p, area);
	} else if (!strcmp(op, "fault_cow")) {
		int down[2], up[2];
		pid_t pid;
		char c;

		pin(0);
		/*
		 * Copy-on-write faults: a child holds the pages, asleep on a
		 * pipe on another CPU, and each touch copies one. The child
		 * says when it is off CPU 0, whose events are counted.
		 */
		p = map_area(area, 0);
		touch(p, area);
		if (pipe(down) || pipe(up))
			die("pipe");
		pid = fork();
		if (pid == 0) {
			unsigned long others = ~1UL;

			close(down[1]);
			close(up[0]);
			if (my_syscall3(__NR_sched_setaffinity, 0,
					sizeof(others), &others))
				exit(2);
			exit(write(up[1], "r", 1) != 1 ||
			     read(down[0], &c, 1) != 0);
		}
		close(down[0]);
		close(up[1]);
		if (read(up[0], &c, 1) != 1)
			die("the child could not leave CPU 0 (needs two CPUs)");
		/*
		 * fork() made the parent's own memory copy-on-write too: the
		 * counters' buffers and the stack fault once here, not in the
		 * timed part.
		 */
		read_stats(&a);
		read_stats(&b);
		t0 = now_ns();
		ops = area / PAGE;
		timed_touch(p, &a, &b, &t0, &t1);
		close(down[1]);
		close(up[0]);
		wait_child(pid);
		munmap(p, area);
	} else if (!strcmp(op, "fork_exec")) {
		ops = 8;
		read_stats(&a);
		t0 = now_ns();
		for (i = 0; i < ops; i++) {
			pid_t pid = fork();

			if (pid == 0) {
				char *argv[] = { (char *)self, "exit", NULL };
				char *envp[] = { NULL };

				execve(self, argv, envp);
				exit(127);
			}
			wait_child(pid);
		}
		t1 = now_ns();
		read_stats(&b);
	} else if (!strcmp(op, "idle")) {
		/* A second of timer ticks: ops counts interrupts, not time. */
		struct timeval tv = { .tv_sec = 1 };
		unsigned long irq0 = interrupts();

		read_stats(&a);
		t0 = now_ns();
		select(0, NULL, NULL, NULL, &tv);
		t1 = now_ns();
		read_stats(&b);
		ops = interrupts() - irq0;
		if (!ops)
			die("no interrupt in a second of idle");
	} else {
		die("unknown op");
	}
	if (run)
		report(op, run, ops, t1 - t0, &a, &b, thp_kb);
}

#define MIB_RANGE	"MIB must be an even number from 2 to 1024"

/* @s as a number from @min to @max, all digits, or die with @what. */
static unsigned long number(const char *s, unsigned long min,
			    unsigned long max, const char *what)
{
	char *end;
	unsigned long n = strtoul(s, &end, 10);

	if (*s < '0' || *s > '9' || *end || n < min || n > max)
		die(what);
	return n;
}

int main(int argc, char **argv)
{
	int runs, i;

	self = argv[0];
	if (argc == 2 && !strcmp(argv[1], "exit"))
		return 0;	/* the fork_exec child */
	if (argc != 3 && argc != 4)
		die("usage: pgtbench OP RUNS [MIB]");
	op_name = argv[1];
	runs = number(argv[2], 1, 1000, "RUNS must be 1 to 1000");
	if (argc == 4) {
		unsigned long mib = number(argv[3], 2, 1024, MIB_RANGE);

		/* Whole huge pages, for the THP benchmark. */
		if (mib % 2)
			die(MIB_RANGE);
		area = mib * MB;
	}
	/* Run 0 warms caches up (and TCG's translations), unreported. */
	for (i = 0; i <= runs; i++)
		run_once(argv[1], i);
	return 0;
}
