// SPDX-License-Identifier: GPL-2.0
/*
 * walk32: PID 1 of the 32-bit guest of `make walk32` (guest/i386/walk32.mk).
 *
 * On a 32-bit kernel unsigned long is 32 bits: a filter walk that steps
 * its handle with ++ after the filter with handle 0xffffffff wraps to 0
 * and starts over.  A filter dump then never ends, and a walker that never
 * stops the walk (tcf_node_bind, when a class is added) loops with RTNL
 * held.  This adds flower filters with handles 1 and 0xffffffff, and runs
 * both walks plus a get of 0xffffffff; it prints "walk32: PASS" or
 * "walk32: FAIL ..." and reboots (QEMU runs with -no-reboot, so it exits;
 * a power off would only halt: this kernel has no ACPI).  A walk that
 * loops in the kernel never comes back: the host's timeout says FAIL.
 *
 * Built with the tree's nolibc (no 32-bit libc needed); the netlink
 * messages are built by hand; every request must be acked (error 0).
 */
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/pkt_sched.h>
#include <linux/pkt_cls.h>
#include <linux/tc_act/tc_gact.h>
#include <linux/utsname.h>

/* not in these uapi headers (nolibc's types.h has LINUX_REBOOT_*) */
#define AF_UNSPEC	0
#define AF_NETLINK	16
#define SOCK_RAW	3
#define SOL_NETLINK	270
#define IFF_UP		1
#define ETH_P_ALL	0x0003
#define HTONS(x)	((unsigned short)((((x) & 0xff) << 8) | ((x) >> 8)))

#define LO		1			/* ifindex of lo */
#define INGRESS		TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS)
#define HTB_ROOT	0x10000			/* 1: */
#define PRIO		1
#define MAX_DUMP	64	/* more than we added: the dump went round */
#define LAST		0xffffffffU

static int fd, failed;
static unsigned int seq;
static char buf[65536];
static struct {
	struct nlmsghdr n;
	char data[1024];
} req;

/* Start a request: netlink header, then the family header `hdr`. */
static void msg(int type, int flags, const void *hdr, int len)
{
	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = NLMSG_LENGTH(len);
	req.n.nlmsg_type = type;
	req.n.nlmsg_flags = NLM_F_REQUEST | flags;
	req.n.nlmsg_seq = ++seq;
	memcpy(NLMSG_DATA(&req.n), hdr, len);
}

/* Append an attribute; returned so that a nest can be closed by end(). */
static struct rtattr *put(int type, const void *data, int len)
{
	struct rtattr *rta = (void *)((char *)&req.n + req.n.nlmsg_len);

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	req.n.nlmsg_len += RTA_ALIGN(rta->rta_len);
	return rta;
}

static void end(struct rtattr *nest)
{
	nest->rta_len = (char *)&req.n + req.n.nlmsg_len - (char *)nest;
}

static void tcmsg(int type, int flags, unsigned int handle,
		  unsigned int parent, unsigned int info, const char *kind)
{
	struct tcmsg t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = LO,
			   .tcm_handle = handle, .tcm_parent = parent,
			   .tcm_info = info };

	msg(type, flags, &t, sizeof(t));
	if (kind)
		put(TCA_KIND, kind, strlen(kind) + 1);
}

static void fail(const char *what)
{
	printf("walk32: FAIL %s\n", what);
	failed = 1;
}

/* The kernel's extack message of an error, if it sent one. */
static const char *extack(struct nlmsghdr *h)
{
	struct rtattr *a = (void *)((char *)NLMSG_DATA(h) +
				    sizeof(struct nlmsgerr));
	int len = (char *)h + h->nlmsg_len - (char *)a;

	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return "";
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == NLMSGERR_ATTR_MSG)
			return RTA_DATA(a);
	return "";
}

/*
 * Send req; pass every reply of ours to each() (if given) until the ack
 * (NLMSG_ERROR) or the end of a dump (NLMSG_DONE).  each() returns non-zero
 * to give up.  Returns 0 when all went well, printing why otherwise.
 */
static int talk(const char *what, int (*each)(struct nlmsghdr *))
{
	if (write(fd, &req, req.n.nlmsg_len) < 0) {
		printf("walk32: %s: send: errno %d\n", what, errno);
		return -1;
	}
	for (;;) {
		int len = read(fd, buf, sizeof(buf));
		struct nlmsghdr *h = (void *)buf;

		if (len <= 0) {
			printf("walk32: %s: recv: errno %d\n", what, errno);
			return -1;
		}
		for (; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			int err = *(int *)NLMSG_DATA(h);

			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR ||
			    h->nlmsg_type == NLMSG_DONE) {
				if (err)
					printf("walk32: %s: error %d %s\n",
					       what, err, extack(h));
				return err;
			}
			if (each && each(h))
				return -1;
		}
	}
}

static int nl_open(void)
{
	int one = 1;

	fd = my_syscall3(__NR_socket, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	if (fd < 0) {
		printf("walk32: socket: %d\n", fd);
		return -1;
	}
	/* error messages of the kernel, without our request echoed */
	my_syscall5(__NR_setsockopt, fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, 4);
	my_syscall5(__NR_setsockopt, fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, 4);
	return 0;
}

/*
 * flower with one gact action and classid 1:2 (for the htb part).  Ours
 * keeps one filter per masked key: the destination MAC differs by handle.
 */
static int add_filter(unsigned int parent, unsigned int handle)
{
	unsigned char mac[6] = { 2, 0, 0, 0, 0, handle & 0xff };
	unsigned char mask[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct tc_gact gact = { .action = TC_ACT_OK };
	unsigned int classid = HTB_ROOT | 2;
	struct rtattr *opts, *acts, *act, *aopts;

	tcmsg(RTM_NEWTFILTER, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, handle,
	      parent, TC_H_MAKE(PRIO << 16, HTONS(ETH_P_ALL)), "flower");
	opts = put(TCA_OPTIONS, NULL, 0);
	put(TCA_FLOWER_KEY_ETH_DST, mac, 6);
	put(TCA_FLOWER_KEY_ETH_DST_MASK, mask, 6);
	put(TCA_FLOWER_CLASSID, &classid, 4);
	acts = put(TCA_FLOWER_ACT, NULL, 0);
	act = put(1, NULL, 0);			/* the first action */
	put(TCA_ACT_KIND, "gact", 5);
	aopts = put(TCA_ACT_OPTIONS, NULL, 0);
	put(TCA_GACT_PARMS, &gact, sizeof(gact));
	end(aopts);
	end(act);
	end(acts);
	end(opts);
	return talk("add flower filter", NULL);
}

static unsigned int handles[MAX_DUMP + 1];
static int nhandles;

static int count_filter(struct nlmsghdr *h)
{
	struct tcmsg *t = NLMSG_DATA(h);

	/* handle 0: the message that opens the prio, not a filter */
	if (h->nlmsg_type == RTM_NEWTFILTER && t->tcm_handle)
		handles[nhandles++] = t->tcm_handle;
	return nhandles > MAX_DUMP;
}

static int got_last(struct nlmsghdr *h)
{
	struct tcmsg *t = NLMSG_DATA(h);

	if (h->nlmsg_type == RTM_NEWTFILTER && t->tcm_handle == LAST)
		nhandles++;
	return 0;
}

static void print_handles(void)
{
	int i;

	for (i = 0; i < nhandles && i < 8; i++)
		printf("%s0x%x", i ? " " : "", handles[i]);
	printf("%s)\n", nhandles > 8 ? " ..." : "");
}

/* Filters 1 and 0xffffffff on clsact ingress: dump them, get the last. */
static void dump_and_get(void)
{
	int err;

	tcmsg(RTM_NEWQDISC, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
	      TC_H_MAKE(TC_H_CLSACT, 0), TC_H_CLSACT, 0, "clsact");
	if (talk("add clsact", NULL) || add_filter(INGRESS, 1) ||
	    add_filter(INGRESS, LAST))
		return fail("setup of the clsact filters");

	tcmsg(RTM_GETTFILTER, NLM_F_DUMP, 0, INGRESS, 0, NULL);
	nhandles = 0;
	err = talk("dump", count_filter);
	if (nhandles > MAX_DUMP) {
		printf("walk32: dump did not end: more than %d filters (handles ",
		       MAX_DUMP);
		print_handles();
		fail("dump went round");
		/* the rest of that dump would come on this socket: drop it */
		close(fd);
		if (nl_open())
			return fail("socket");
	} else if (err) {
		fail("dump");
	} else {
		printf("walk32: dump ended, %d filters (handles ", nhandles);
		print_handles();
		if (nhandles != 2 || handles[0] != 1 || handles[1] != LAST)
			fail("dump: expected handles 1 0xffffffff");
	}

	tcmsg(RTM_GETTFILTER, NLM_F_ACK, LAST, INGRESS,
	      TC_H_MAKE(PRIO << 16, HTONS(ETH_P_ALL)), "flower");
	nhandles = 0;
	if (talk("get 0xffffffff", got_last) || nhandles != 1)
		return fail("get of handle 0xffffffff");
	printf("walk32: get 0xffffffff ok\n");
}

static int add_class(unsigned int minor)
{
	/* 1 Mbit/s; an ethernet link layer needs no rate table */
	struct tc_htb_opt opt = {
		.rate = { .rate = 125000, .linklayer = TC_LINKLAYER_ETHERNET },
		.ceil = { .rate = 125000, .linklayer = TC_LINKLAYER_ETHERNET },
		.buffer = 100000, .cbuffer = 100000 };
	struct rtattr *opts;

	tcmsg(RTM_NEWTCLASS, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
	      HTB_ROOT | minor, HTB_ROOT, 0, "htb");
	opts = put(TCA_OPTIONS, NULL, 0);
	put(TCA_HTB_PARMS, &opt, sizeof(opt));
	end(opts);
	return talk("add htb class", NULL);
}

/*
 * Filters 1 and 0xffffffff on htb class 1:1; adding class 1:2 then binds
 * them (tc_bind_tclass), a walk whose callback never stops it: with a
 * handle that wraps, it loops with RTNL held and the ack never comes.
 */
static void bind_walk(void)
{
	struct tc_htb_glob glob = { .version = 3, .rate2quantum = 10 };
	struct rtattr *opts;

	tcmsg(RTM_NEWQDISC, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, HTB_ROOT,
	      TC_H_ROOT, 0, "htb");
	opts = put(TCA_OPTIONS, NULL, 0);
	put(TCA_HTB_INIT, &glob, sizeof(glob));
	end(opts);
	if (talk("add htb", NULL) || add_class(1) ||
	    add_filter(HTB_ROOT | 1, 1) || add_filter(HTB_ROOT | 1, LAST))
		return fail("setup of htb and its filters");
	printf("walk32: adding class 1:2 (walks the filters of 1:1 with RTNL held)\n");
	if (add_class(2))
		return fail("add class 1:2");
	printf("walk32: bind walk ended\n");
}

int main(void)
{
	struct ifinfomsg up = { .ifi_index = LO, .ifi_flags = IFF_UP,
				.ifi_change = IFF_UP };
	struct new_utsname u;

	my_syscall1(__NR_uname, &u);
	printf("walk32: start, %s kernel %s\n", u.machine, u.release);
	if (nl_open())
		fail("socket");
	else {
		msg(RTM_NEWLINK, NLM_F_ACK, &up, sizeof(up));
		if (talk("set lo up", NULL))
			fail("set lo up");
		dump_and_get();
		bind_walk();
	}
	printf("walk32: %s\n", failed ? "FAIL" : "PASS");
	reboot(LINUX_REBOOT_CMD_RESTART);
	return 0;
}
