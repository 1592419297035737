// SPDX-License-Identifier: GPL-2.0
/*
 * flower_offload_test: a driver without hardware that records what a tc
 * classifier gives to drivers (TC_SETUP_CLSFLOWER, TC_SETUP_CLSMATCHALL),
 * so that tests can read it back.
 *
 * Binding.  The driver registers with flow_indr_dev_register(), so it is
 * asked for every tc block bound to a device without ndo_setup_tc (veth,
 * dummy).  It takes the blocks of the devices named in debugfs "devices"
 * when they are bound (a later write changes nothing already bound) and
 * allocates one flow_block_cb per taken (device, qdisc, binder) with its
 * own struct fot_binding as cb_priv and cb_ident: a shared block bound to
 * two taken devices has two callbacks, and the second gets playback.
 * Blocks of netfilter (no qdisc) are not taken.  In 6.1, cls_api counts
 * such a device as one that does not offload (tcf_block_offload_cmd()
 * returns -EOPNOTSUPP for it), so a skip_sw rule never reaches the driver
 * there.
 *
 * Devices of its own.  The driver also makes network devices of kind
 * "fltest" (ndevs of them at load, fltest0...; more, in any namespace, with
 * `ip link add NAME type fltest`) and binds their blocks as a NIC driver
 * does: ndo_setup_tc takes TC_SETUP_BLOCK for every block bound to one, any
 * binder, with a binding and callback as above, and the rules come through
 * the same callback.  NETIF_F_HW_TC is on (ethtool's hw-tc-offload; off,
 * the driver refuses every REPLACE, as real drivers do).  They have no
 * wire: a frame they send is dropped, and only a frame another device's
 * mirred redirects to their ingress arrives there.  They may move to
 * another namespace and go with it (rtnl_link_ops), and all go at rmmod.
 *
 * Rules.  The driver keeps no rules, only which filter cookies each binding
 * holds (accepted FLOW_CLS_REPLACE or TMPLT_CREATE, not yet destroyed), so
 * that, like real hardware, it answers STATS and DESTROY for a rule it holds
 * with 0 and for any other with -ENOENT.  Cookies (pointers) are logged as
 * small integers: the first cookie seen is 1, the next new one 2, and so
 * on.  A cookie is dead when no binding holds it or has seen it since its
 * last DESTROY (or the binding went away).  The last FOT_DEAD_MAX dead
 * cookies keep their ids, so that a DESTROY or STATS coming after the
 * rule's last DESTROY is logged with the rule's id (stock cls_flower
 * destroys a rule it failed to add twice); a REPLACE of a dead cookie is a
 * new rule at the same address and gets a new id.
 *
 * debugfs (/sys/kernel/debug/flower_offload_test/, offload/README.md):
 * devices, log (every line), stats, refuse.  sysfs, for each device of ours
 * (/sys/class/net/DEV/fltest/, reachable inside the device's namespace):
 * log (the lines of its bindings), stats (what its bindings answer to
 * STATS, in place of debugfs's), refuse (besides debugfs's).
 *
 * Locking.  fot_lock (a mutex) protects all of the driver's state: the
 * configuration, the bindings list, the cookie table and the logs, the
 * devices' included.  It is taken by the debugfs handlers and the devices'
 * sysfs handlers; by the indirect bind callback, which tc calls under
 * flow_indr_block_lock (and, for a qdisc's bind and unbind, under rtnl and
 * the block's cb_lock held for writing); by ndo_setup_tc's bind and unbind
 * (rtnl and the block's cb_lock held for writing); by a device's
 * priv_destructor (after its unregistration, without rtnl); by the rule
 * callback, which tc calls with the block's cb_lock held for reading and
 * perhaps without rtnl (the driver sets unlocked_driver_cb); and by the
 * release callback.  Under fot_lock the driver calls only flow_offload's
 * list helpers, which take no lock, and never calls into tc: fot_lock
 * nests inside all of tc's locks.  All callbacks may sleep, as mlx5's do.
 * A flow_block_cb's driver_list is not used: it is an empty list head of
 * its own, so that tc's list_del() of it (indirect cleanup, bind unroll)
 * is harmless.  A binding of a device of ours points to the device's
 * struct fot_dev; tc releases it before the device is freed (unregistering
 * a device destroys its qdiscs, which unbind their blocks), and the rule
 * callback reads the device's features without rtnl, as drivers do.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/netlink.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include <linux/xarray.h>
#include <net/flow_offload.h>
#include <net/ip_tunnels.h>
#include <net/net_namespace.h>
#include <net/pkt_cls.h>
#include <net/rtnetlink.h>
#include <generated/utsversion.h>

#define FOT_LOG_MAX_LINES	100000
#define FOT_LOG_MAX_BYTES	(64UL << 20)
#define FOT_MAX_DEVICES		64
#define FOT_WRITE_MAX		4096
#define FOT_COOKIE_BITS		12
#define FOT_DEAD_MAX		4096
#define FOT_REFUSED_MSG		KBUILD_MODNAME ": refused"
/* what drivers say when NETIF_F_HW_TC is off (tc_can_offload_extack()) */
#define FOT_HW_TC_OFF_MSG	"TC offload is disabled on net device"
#define FOT_KIND		"fltest"

/* A log: one string per line, and its counters */
struct fot_log {
	struct xarray lines;		/* line i (from 0): a string */
	unsigned long n;		/* lines held */
	size_t bytes;			/* their length */
	u64 seq;			/* lines since the last clear */
	u64 dropped;			/* lines dropped since then */
};

/* What tc's STATS get: the counters a test set */
struct fot_counters {
	u64 pkts;
	u64 bytes;
	u64 drops;
};

/* A device of the driver's own (kind fltest): its netdev_priv() */
struct fot_dev {
	struct net_device *dev;
	struct fot_log log;		/* the lines of its bindings */
	struct fot_counters stats;	/* answered to its bindings' STATS */
	bool refuse_all;		/* its own refusals, besides debugfs's */
	unsigned long refuse_keys;
};

/* One taken (device, qdisc, binder) of a block: a flow_block_cb's cb_priv */
struct fot_binding {
	struct list_head node;		/* in fot_bindings */
	struct list_head holds;		/* fot_hold.bnode */
	struct fot_dev *fd;		/* a device of ours (bound directly), or
					 * NULL (bound indirectly)
					 */
	const void *block;		/* bo->block, compared, never used */
	const void *dev;		/* compared, never used */
	const void *sch;		/* compared, never used */
	enum flow_block_binder_type binder;
	bool shared;			/* the block is a shared one */
	bool unbound;			/* tc asked to unbind it */
	char name[IFNAMSIZ];		/* the device's name at bind time */
};

/* A filter (or template) cookie and its small id */
struct fot_cookie {
	struct hlist_node hnode;	/* in fot_cookies */
	struct list_head holds;		/* fot_hold.cnode */
	struct list_head dead;		/* in fot_dead, or empty */
	unsigned long cookie;
	u32 id;
};

/* A cookie seen by a binding; held: the binding has the rule */
struct fot_hold {
	struct list_head cnode;
	struct list_head bnode;
	struct fot_cookie *c;
	struct fot_binding *b;
	bool held;
	u8 hw_stats;			/* the rule's first action's hw_stats */
};

/* fot_lock: everything below (see the comment at the top) */
static DEFINE_MUTEX(fot_lock);
static char (*fot_devices)[IFNAMSIZ];
static unsigned int fot_n_devices;
static bool fot_refuse_all;
static unsigned long fot_refuse_keys;	/* BIT(FLOW_DISSECTOR_KEY_*) */
static struct fot_counters fot_gstats;	/* debugfs "stats" */
static LIST_HEAD(fot_bindings);
static DEFINE_HASHTABLE(fot_cookies, FOT_COOKIE_BITS);
static u32 fot_next_id;
static LIST_HEAD(fot_dead);		/* dead cookies, oldest first */
static unsigned int fot_n_dead;
static struct fot_log fot_glog = {	/* every line: debugfs "log" */
	.lines = XARRAY_INIT(fot_glog.lines, 0),
};

static struct dentry *fot_dir;

static unsigned int log_max = FOT_LOG_MAX_LINES;
module_param(log_max, uint, 0444);
MODULE_PARM_DESC(log_max, "lines the log holds before it is truncated");

static unsigned int ndevs = 2;
module_param(ndevs, uint, 0444);
MODULE_PARM_DESC(ndevs, "devices of kind " FOT_KIND " made at load (" FOT_KIND "0...)");

/* ---- dissector keys and actions: names, sizes, readers ---- */

struct fot_km {
	void *key;
	void *mask;
};

typedef void (*fot_match_fn)(const struct flow_rule *rule, struct fot_km *km);

/* fot_match_NAME() reads key NAME with flow_rule_match_NAME() */
#define FOT_MATCH(name, mtype)						\
static void fot_match_##name(const struct flow_rule *rule,		\
			     struct fot_km *km)				\
{									\
	struct flow_match_##mtype m;					\
									\
	flow_rule_match_##name(rule, &m);				\
	km->key = m.key;						\
	km->mask = m.mask;						\
}

FOT_MATCH(meta, meta)
FOT_MATCH(basic, basic)
FOT_MATCH(control, control)
FOT_MATCH(eth_addrs, eth_addrs)
FOT_MATCH(vlan, vlan)
FOT_MATCH(cvlan, vlan)
FOT_MATCH(ipv4_addrs, ipv4_addrs)
FOT_MATCH(ipv6_addrs, ipv6_addrs)
FOT_MATCH(ip, ip)
FOT_MATCH(ports, ports)
FOT_MATCH(ports_range, ports_range)
FOT_MATCH(tcp, tcp)
FOT_MATCH(icmp, icmp)
FOT_MATCH(mpls, mpls)
FOT_MATCH(enc_control, control)
FOT_MATCH(enc_ipv4_addrs, ipv4_addrs)
FOT_MATCH(enc_ipv6_addrs, ipv6_addrs)
FOT_MATCH(enc_ip, ip)
FOT_MATCH(enc_ports, ports)
FOT_MATCH(enc_keyid, enc_keyid)
FOT_MATCH(enc_opts, enc_opts)
FOT_MATCH(ct, ct)
FOT_MATCH(pppoe, pppoe)
FOT_MATCH(l2tpv3, l2tpv3)

struct fot_key {
	const char *name;
	const char *refuse_msg;
	size_t size;
	fot_match_fn match;	/* NULL: no helper, read as the helpers do */
};

#define FOT_KEY(id, kname, ktype, fn)					\
	[FLOW_DISSECTOR_KEY_##id] = {					\
		.name = #kname,						\
		.refuse_msg = KBUILD_MODNAME ": key " #kname " not supported", \
		.size = sizeof(struct flow_dissector_key_##ktype),	\
		.match = fn,						\
	}

static const struct fot_key fot_keys[FLOW_DISSECTOR_KEY_MAX] = {
	FOT_KEY(CONTROL, control, control, fot_match_control),
	FOT_KEY(BASIC, basic, basic, fot_match_basic),
	FOT_KEY(IPV4_ADDRS, ipv4_addrs, ipv4_addrs, fot_match_ipv4_addrs),
	FOT_KEY(IPV6_ADDRS, ipv6_addrs, ipv6_addrs, fot_match_ipv6_addrs),
	FOT_KEY(PORTS, ports, ports, fot_match_ports),
	FOT_KEY(PORTS_RANGE, ports_range, ports_range,
		fot_match_ports_range),
	FOT_KEY(ICMP, icmp, icmp, fot_match_icmp),
	FOT_KEY(ETH_ADDRS, eth_addrs, eth_addrs, fot_match_eth_addrs),
	FOT_KEY(TIPC, tipc, tipc, NULL),
	FOT_KEY(ARP, arp, arp, NULL),
	FOT_KEY(VLAN, vlan, vlan, fot_match_vlan),
	FOT_KEY(FLOW_LABEL, flow_label, tags, NULL),
	FOT_KEY(GRE_KEYID, gre_keyid, keyid, NULL),
	FOT_KEY(MPLS_ENTROPY, mpls_entropy, keyid, NULL),
	FOT_KEY(ENC_KEYID, enc_keyid, keyid, fot_match_enc_keyid),
	FOT_KEY(ENC_IPV4_ADDRS, enc_ipv4_addrs, ipv4_addrs,
		fot_match_enc_ipv4_addrs),
	FOT_KEY(ENC_IPV6_ADDRS, enc_ipv6_addrs, ipv6_addrs,
		fot_match_enc_ipv6_addrs),
	FOT_KEY(ENC_CONTROL, enc_control, control, fot_match_enc_control),
	FOT_KEY(ENC_PORTS, enc_ports, ports, fot_match_enc_ports),
	FOT_KEY(MPLS, mpls, mpls, fot_match_mpls),
	FOT_KEY(TCP, tcp, tcp, fot_match_tcp),
	FOT_KEY(IP, ip, ip, fot_match_ip),
	FOT_KEY(CVLAN, cvlan, vlan, fot_match_cvlan),
	FOT_KEY(ENC_IP, enc_ip, ip, fot_match_enc_ip),
	FOT_KEY(ENC_OPTS, enc_opts, enc_opts, fot_match_enc_opts),
	FOT_KEY(META, meta, meta, fot_match_meta),
	FOT_KEY(CT, ct, ct, fot_match_ct),
	FOT_KEY(HASH, hash, hash, NULL),
	FOT_KEY(NUM_OF_VLANS, num_of_vlans, num_of_vlans, NULL),
	FOT_KEY(PPPOE, pppoe, pppoe, fot_match_pppoe),
	FOT_KEY(L2TPV3, l2tpv3, l2tpv3, fot_match_l2tpv3),
};

static void fot_match(const struct flow_rule *rule, int id, struct fot_km *km)
{
	struct flow_dissector *d = rule->match.dissector;

	if (fot_keys[id].match) {
		fot_keys[id].match(rule, km);
		return;
	}
	km->key = skb_flow_dissector_target(d, id, rule->match.key);
	km->mask = skb_flow_dissector_target(d, id, rule->match.mask);
}

static const char * const fot_binders[] = {
	[FLOW_BLOCK_BINDER_TYPE_UNSPEC] = "unspec",
	[FLOW_BLOCK_BINDER_TYPE_CLSACT_INGRESS] = "ingress",
	[FLOW_BLOCK_BINDER_TYPE_CLSACT_EGRESS] = "egress",
	[FLOW_BLOCK_BINDER_TYPE_RED_EARLY_DROP] = "red_early_drop",
	[FLOW_BLOCK_BINDER_TYPE_RED_MARK] = "red_mark",
};

static const char *fot_binder_name(enum flow_block_binder_type t)
{
	if (t < ARRAY_SIZE(fot_binders) && fot_binders[t])
		return fot_binders[t];
	return "other";
}

/* ---- a log line under construction ---- */

struct fot_buf {
	char *s;
	size_t len;
	size_t size;
	bool failed;		/* out of memory: the line is dropped */
};

static bool fot_reserve(struct fot_buf *b, size_t extra)
{
	size_t want = b->len + extra + 1;
	char *s;

	if (b->failed)
		return false;
	if (want <= b->size)
		return true;
	want = max3(want, 2 * b->size, (size_t)256);
	s = krealloc(b->s, want, GFP_KERNEL);
	if (!s) {
		b->failed = true;
		return false;
	}
	b->s = s;
	b->size = want;
	return true;
}

static __printf(2, 3) void fot_printf(struct fot_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (!fot_reserve(b, n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->size - b->len, fmt, ap);
	va_end(ap);
	b->len += n;
}

/* a JSON string: the hex of n bytes at p */
static void fot_hex(struct fot_buf *b, const void *p, size_t n)
{
	if (!fot_reserve(b, 2 * n + 2))
		return;
	b->s[b->len++] = '"';
	bin2hex(b->s + b->len, p, n);
	b->len += 2 * n;
	b->s[b->len++] = '"';
	b->s[b->len] = '\0';
}

/* a JSON string: s, escaped */
static void fot_str(struct fot_buf *b, const char *s)
{
	unsigned char c;

	fot_printf(b, "\"");
	for (; *s; s++) {
		c = *s;
		if (c == '"' || c == '\\')
			fot_printf(b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fot_printf(b, "\\u%04x", c);
		else
			fot_printf(b, "%c", c);
	}
	fot_printf(b, "\"");
}

/* ---- the logs (fot_lock held) ---- */

/* a line's body: the fields after "seq", which each log numbers itself */
static void fot_line_start(struct fot_buf *b, const char *dev,
			   const char *type, const char *cmd)
{
	fot_printf(b, "\"dev\": ");
	fot_str(b, dev);
	fot_printf(b, ", \"type\": \"%s\", \"cmd\": \"%s\"", type, cmd);
}

static bool fot_log_full(const struct fot_log *log, size_t len)
{
	return log->dropped || log->n >= log_max ||
	       log->bytes + len > FOT_LOG_MAX_BYTES;
}

/* the line {"seq": N, BODY} at the end of log, or counted as dropped */
static void fot_log_add(struct fot_log *log, const struct fot_buf *b)
{
	char *s = NULL;

	log->seq++;
	if (!b->failed && b->s && !log->dropped)
		s = kasprintf(GFP_KERNEL, "{\"seq\": %llu, %s}", log->seq, b->s);
	if (!s || fot_log_full(log, strlen(s)) ||
	    xa_is_err(xa_store(&log->lines, log->n, s, GFP_KERNEL))) {
		log->dropped++;
		kfree(s);
		return;
	}
	log->n++;
	log->bytes += strlen(s);
}

/* ends the line: to the log of every line, and to fd's if fd; frees b->s */
static void fot_log_commit(struct fot_buf *b, struct fot_dev *fd)
{
	fot_log_add(&fot_glog, b);
	if (fd)
		fot_log_add(&fd->log, b);
	kfree(b->s);
	b->s = NULL;
}

static void fot_log_clear(struct fot_log *log)
{
	unsigned long i;
	char *s;

	xa_for_each(&log->lines, i, s)
		kfree(s);
	xa_destroy(&log->lines);
	log->n = 0;
	log->bytes = 0;
	log->seq = 0;
	log->dropped = 0;
}

/* ---- cookies and holds (fot_lock held) ---- */

static struct fot_cookie *fot_cookie_find(unsigned long cookie)
{
	struct fot_cookie *c;

	hash_for_each_possible(fot_cookies, c, hnode, cookie)
		if (c->cookie == cookie)
			return c;
	return NULL;
}

static bool fot_cookie_dead(const struct fot_cookie *c)
{
	return !list_empty(&c->dead);
}

static void fot_cookie_undead(struct fot_cookie *c)
{
	list_del_init(&c->dead);
	fot_n_dead--;
}

/*
 * The entry of cookie, made if needed.  fresh (a REPLACE or TMPLT_CREATE):
 * a dead cookie is a new rule at the old one's address and gets a new id.
 */
static struct fot_cookie *fot_cookie_get(unsigned long cookie, bool fresh)
{
	struct fot_cookie *c = fot_cookie_find(cookie);

	if (c && fresh && fot_cookie_dead(c)) {
		fot_cookie_undead(c);
		c->id = ++fot_next_id;
	}
	if (c)
		return c;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	c->cookie = cookie;
	c->id = ++fot_next_id;
	INIT_LIST_HEAD(&c->holds);
	INIT_LIST_HEAD(&c->dead);
	hash_add(fot_cookies, &c->hnode, cookie);
	return c;
}

static void fot_cookie_free(struct fot_cookie *c)
{
	if (fot_cookie_dead(c))
		fot_cookie_undead(c);
	hash_del(&c->hnode);
	kfree(c);
}

/*
 * After a command on c: a cookie no binding has seen any more is dead; the
 * last FOT_DEAD_MAX dead ones are remembered.
 */
static void fot_cookie_gc(struct fot_cookie *c)
{
	if (!c)
		return;
	if (!list_empty(&c->holds)) {
		if (fot_cookie_dead(c))
			fot_cookie_undead(c);
		return;
	}
	if (!fot_cookie_dead(c)) {
		list_add_tail(&c->dead, &fot_dead);
		fot_n_dead++;
	}
	while (fot_n_dead > FOT_DEAD_MAX)
		fot_cookie_free(list_first_entry(&fot_dead, struct fot_cookie,
						 dead));
}

static struct fot_hold *fot_hold_find(struct fot_cookie *c,
				      struct fot_binding *b)
{
	struct fot_hold *h;

	if (!c)
		return NULL;
	list_for_each_entry(h, &c->holds, cnode)
		if (h->b == b)
			return h;
	return NULL;
}

static struct fot_hold *fot_hold_get(struct fot_cookie *c,
				     struct fot_binding *b)
{
	struct fot_hold *h = fot_hold_find(c, b);

	if (h || !c)
		return h;
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return NULL;
	h->c = c;
	h->b = b;
	list_add_tail(&h->cnode, &c->holds);
	list_add_tail(&h->bnode, &b->holds);
	return h;
}

static void fot_hold_put(struct fot_hold *h)
{
	list_del(&h->cnode);
	list_del(&h->bnode);
	kfree(h);
}

/* ---- log fields of a rule ---- */

static void fot_put_key(struct fot_buf *b, const struct flow_rule *rule,
			int id)
{
	struct fot_km km;

	fot_match(rule, id, &km);
	fot_printf(b, "\"%s\": {\"key\": ", fot_keys[id].name);
	fot_hex(b, km.key, fot_keys[id].size);
	fot_printf(b, ", \"mask\": ");
	fot_hex(b, km.mask, fot_keys[id].size);
	fot_printf(b, "}");
}

static void fot_put_keys(struct fot_buf *b, const struct flow_rule *rule)
{
	const struct flow_dissector *d = rule->match.dissector;
	const char *sep = "";
	int id;

	fot_printf(b, ", \"used_keys\": [");
	for (id = 0; id < FLOW_DISSECTOR_KEY_MAX; id++) {
		if (!dissector_uses_key(d, id))
			continue;
		fot_printf(b, "%s\"%s\"", sep, fot_keys[id].name);
		sep = ", ";
	}
	fot_printf(b, "], \"keys\": {");
	sep = "";
	for (id = 0; id < FLOW_DISSECTOR_KEY_MAX; id++) {
		if (!dissector_uses_key(d, id))
			continue;
		fot_printf(b, "%s", sep);
		fot_put_key(b, rule, id);
		sep = ", ";
	}
	fot_printf(b, "}");
}

typedef void (*fot_put_fn)(struct fot_buf *b,
			   const struct flow_action_entry *act);

static void fot_put_goto(struct fot_buf *b,
			 const struct flow_action_entry *act)
{
	fot_printf(b, ", \"chain_index\": %u", act->chain_index);
}

static void fot_put_dev(struct fot_buf *b, const struct flow_action_entry *act)
{
	fot_printf(b, ", \"dev\": ");
	if (act->dev)
		fot_str(b, act->dev->name);
	else
		fot_printf(b, "null");
}

static void fot_put_vlan(struct fot_buf *b,
			 const struct flow_action_entry *act)
{
	fot_printf(b, ", \"vid\": %u, \"proto\": %u, \"prio\": %u",
		   act->vlan.vid, ntohs(act->vlan.proto), act->vlan.prio);
}

static void fot_put_vlan_eth(struct fot_buf *b,
			     const struct flow_action_entry *act)
{
	fot_printf(b, ", \"dst\": \"%pM\", \"src\": \"%pM\"",
		   act->vlan_push_eth.dst, act->vlan_push_eth.src);
}

static void fot_put_mangle(struct fot_buf *b,
			   const struct flow_action_entry *act)
{
	fot_printf(b, ", \"htype\": %u, \"offset\": %u, \"mask\": %u",
		   act->mangle.htype, act->mangle.offset, act->mangle.mask);
	fot_printf(b, ", \"val\": %u", act->mangle.val);
}

static void fot_put_tunnel(struct fot_buf *b,
			   const struct flow_action_entry *act)
{
	struct ip_tunnel_info *t = act->tunnel;
	const struct ip_tunnel_key *k;

	if (!t)
		return;
	k = &t->key;
	fot_printf(b, ", \"tun_id\": %llu", be64_to_cpu(k->tun_id));
	if (ip_tunnel_info_af(t) == AF_INET6)
		fot_printf(b, ", \"dst\": \"%pI6c\", \"src\": \"%pI6c\"",
			   &k->u.ipv6.dst, &k->u.ipv6.src);
	else
		fot_printf(b, ", \"dst\": \"%pI4\", \"src\": \"%pI4\"",
			   &k->u.ipv4.dst, &k->u.ipv4.src);
	fot_printf(b, ", \"tp_dst\": %u, \"tos\": %u, \"ttl\": %u",
		   ntohs(k->tp_dst), k->tos, k->ttl);
	fot_printf(b, ", \"tun_flags\": %u, \"options\": ",
		   ntohs(k->tun_flags));
	fot_hex(b, ip_tunnel_info_opts(t), t->options_len);
}

static void fot_put_csum(struct fot_buf *b,
			 const struct flow_action_entry *act)
{
	fot_printf(b, ", \"csum_flags\": %u", act->csum_flags);
}

static void fot_put_mark(struct fot_buf *b,
			 const struct flow_action_entry *act)
{
	fot_printf(b, ", \"mark\": %u", act->mark);
}

static void fot_put_ptype(struct fot_buf *b,
			  const struct flow_action_entry *act)
{
	fot_printf(b, ", \"ptype\": %u", act->ptype);
}

static void fot_put_priority(struct fot_buf *b,
			     const struct flow_action_entry *act)
{
	fot_printf(b, ", \"priority\": %u", act->priority);
}

static void fot_put_queue(struct fot_buf *b,
			  const struct flow_action_entry *act)
{
	fot_printf(b, ", \"ctx\": %u, \"queue_index\": %u, \"vf\": %u",
		   act->queue.ctx, act->queue.index, act->queue.vf);
}

static void fot_put_sample(struct fot_buf *b,
			   const struct flow_action_entry *act)
{
	fot_printf(b, ", \"rate\": %u, \"trunc_size\": %u, \"truncate\": %s",
		   act->sample.rate, act->sample.trunc_size,
		   act->sample.truncate ? "true" : "false");
}

static const char *fot_action_name(enum flow_action_id id);

static void fot_put_police(struct fot_buf *b,
			   const struct flow_action_entry *act)
{
	fot_printf(b, ", \"rate\": %llu, \"burst\": %u, \"peakrate\": %llu",
		   act->police.rate_bytes_ps, act->police.burst,
		   act->police.peakrate_bytes_ps);
	fot_printf(b, ", \"avrate\": %u, \"overhead\": %u",
		   act->police.avrate, act->police.overhead);
	fot_printf(b, ", \"rate_pkt\": %llu, \"burst_pkt\": %llu, \"mtu\": %u",
		   act->police.rate_pkt_ps, act->police.burst_pkt,
		   act->police.mtu);
	fot_printf(b, ", \"exceed\": \"%s\", \"notexceed\": \"%s\"",
		   fot_action_name(act->police.exceed.act_id),
		   fot_action_name(act->police.notexceed.act_id));
}

static void fot_put_ct(struct fot_buf *b, const struct flow_action_entry *act)
{
	fot_printf(b, ", \"action\": %d, \"zone\": %u",
		   act->ct.action, act->ct.zone);
}

static void fot_put_ct_metadata(struct fot_buf *b,
				const struct flow_action_entry *act)
{
	fot_printf(b, ", \"mark\": %u, \"orig_dir\": %s, \"labels\": ",
		   act->ct_metadata.mark,
		   act->ct_metadata.orig_dir ? "true" : "false");
	fot_hex(b, act->ct_metadata.labels, sizeof(act->ct_metadata.labels));
}

static void fot_put_mpls_push(struct fot_buf *b,
			      const struct flow_action_entry *act)
{
	fot_printf(b, ", \"label\": %u, \"proto\": %u, \"tc\": %u",
		   act->mpls_push.label, ntohs(act->mpls_push.proto),
		   act->mpls_push.tc);
	fot_printf(b, ", \"bos\": %u, \"ttl\": %u",
		   act->mpls_push.bos, act->mpls_push.ttl);
}

static void fot_put_mpls_pop(struct fot_buf *b,
			     const struct flow_action_entry *act)
{
	fot_printf(b, ", \"proto\": %u", ntohs(act->mpls_pop.proto));
}

static void fot_put_mpls_mangle(struct fot_buf *b,
				const struct flow_action_entry *act)
{
	fot_printf(b, ", \"label\": %u, \"tc\": %u, \"bos\": %u, \"ttl\": %u",
		   act->mpls_mangle.label, act->mpls_mangle.tc,
		   act->mpls_mangle.bos, act->mpls_mangle.ttl);
}

static void fot_put_gate(struct fot_buf *b,
			 const struct flow_action_entry *act)
{
	fot_printf(b, ", \"prio\": %d, \"basetime\": %llu, \"cycletime\": %llu",
		   act->gate.prio, act->gate.basetime, act->gate.cycletime);
	fot_printf(b, ", \"cycletimeext\": %llu, \"num_entries\": %u",
		   act->gate.cycletimeext, act->gate.num_entries);
}

static void fot_put_pppoe(struct fot_buf *b,
			  const struct flow_action_entry *act)
{
	fot_printf(b, ", \"sid\": %u", act->pppoe.sid);
}

struct fot_action {
	const char *name;
	fot_put_fn put;		/* the parameters, or NULL */
};

#define FOT_ACT(id, aname, fn)						\
	[FLOW_ACTION_##id] = { .name = aname, .put = fn }

static const struct fot_action fot_actions[NUM_FLOW_ACTIONS] = {
	FOT_ACT(ACCEPT, "accept", NULL),
	FOT_ACT(DROP, "drop", NULL),
	FOT_ACT(TRAP, "trap", NULL),
	FOT_ACT(GOTO, "goto", fot_put_goto),
	FOT_ACT(REDIRECT, "redirect", fot_put_dev),
	FOT_ACT(MIRRED, "mirred", fot_put_dev),
	FOT_ACT(REDIRECT_INGRESS, "redirect_ingress", fot_put_dev),
	FOT_ACT(MIRRED_INGRESS, "mirred_ingress", fot_put_dev),
	FOT_ACT(VLAN_PUSH, "vlan_push", fot_put_vlan),
	FOT_ACT(VLAN_POP, "vlan_pop", NULL),
	FOT_ACT(VLAN_MANGLE, "vlan_mangle", fot_put_vlan),
	FOT_ACT(TUNNEL_ENCAP, "tunnel_encap", fot_put_tunnel),
	FOT_ACT(TUNNEL_DECAP, "tunnel_decap", NULL),
	FOT_ACT(MANGLE, "mangle", fot_put_mangle),
	FOT_ACT(ADD, "add", fot_put_mangle),
	FOT_ACT(CSUM, "csum", fot_put_csum),
	FOT_ACT(MARK, "mark", fot_put_mark),
	FOT_ACT(PTYPE, "ptype", fot_put_ptype),
	FOT_ACT(PRIORITY, "priority", fot_put_priority),
	FOT_ACT(WAKE, "wake", NULL),
	FOT_ACT(QUEUE, "queue", fot_put_queue),
	FOT_ACT(SAMPLE, "sample", fot_put_sample),
	FOT_ACT(POLICE, "police", fot_put_police),
	FOT_ACT(CT, "ct", fot_put_ct),
	FOT_ACT(CT_METADATA, "ct_metadata", fot_put_ct_metadata),
	FOT_ACT(MPLS_PUSH, "mpls_push", fot_put_mpls_push),
	FOT_ACT(MPLS_POP, "mpls_pop", fot_put_mpls_pop),
	FOT_ACT(MPLS_MANGLE, "mpls_mangle", fot_put_mpls_mangle),
	FOT_ACT(GATE, "gate", fot_put_gate),
	FOT_ACT(PPPOE_PUSH, "pppoe_push", fot_put_pppoe),
	FOT_ACT(JUMP, "jump", NULL),
	FOT_ACT(PIPE, "pipe", NULL),
	FOT_ACT(VLAN_PUSH_ETH, "vlan_push_eth", fot_put_vlan_eth),
	FOT_ACT(VLAN_POP_ETH, "vlan_pop_eth", NULL),
	FOT_ACT(CONTINUE, "continue", NULL),
};

static const char *fot_action_name(enum flow_action_id id)
{
	if (id < NUM_FLOW_ACTIONS && fot_actions[id].name)
		return fot_actions[id].name;
	return "unknown";
}

static void fot_put_actions(struct fot_buf *b, const struct flow_action *acts)
{
	const struct flow_action_entry *act;
	int i;

	fot_printf(b, ", \"actions\": [");
	flow_action_for_each(i, act, acts) {
		fot_printf(b, "%s{\"id\": \"%s\"", i ? ", " : "",
			   fot_action_name(act->id));
		fot_printf(b, ", \"hw_stats\": %u, \"index\": %u",
			   act->hw_stats, act->hw_index);
		if (act->id < NUM_FLOW_ACTIONS && fot_actions[act->id].put)
			fot_actions[act->id].put(b, act);
		fot_printf(b, "}");
	}
	fot_printf(b, "]");
}

/* ---- rule callbacks ---- */

enum fot_op {
	FOT_REPLACE,
	FOT_DESTROY,
	FOT_STATS,
	FOT_TMPLT_CREATE,
	FOT_TMPLT_DESTROY,
};

/* One rule callback, whichever the classifier */
struct fot_call {
	const char *type;	/* "flower", "matchall" */
	const char *cmd;
	enum fot_op op;
	unsigned long cookie;
	const struct flow_cls_common_offload *common;
	struct flow_rule *rule;	/* replace, tmplt_create; else NULL */
	struct flow_stats *stats;
	bool flower;		/* classid and match keys */
	u32 classid;
};

/*
 * The extack message refusing the rule b is given, or NULL: on a device of
 * ours with NETIF_F_HW_TC off (as real drivers check it), then debugfs's
 * refusals and the device's own (refuse all first, then the lowest key).
 */
static const char *fot_refusal(const struct fot_binding *b,
			       const struct fot_call *call)
{
	const struct fot_dev *fd = b->fd;
	unsigned long keys = fot_refuse_keys;
	int id;

	if (fd && !tc_can_offload(fd->dev))
		return FOT_HW_TC_OFF_MSG;
	if (fot_refuse_all || (fd && fd->refuse_all))
		return FOT_REFUSED_MSG;
	if (!call->flower)
		return NULL;
	if (fd)
		keys |= fd->refuse_keys;
	for (id = 0; id < FLOW_DISSECTOR_KEY_MAX; id++)
		if ((keys & BIT(id)) &&
		    dissector_uses_key(call->rule->match.dissector, id))
			return fot_keys[id].refuse_msg;
	return NULL;
}

static u8 fot_rule_hw_stats(const struct flow_rule *rule)
{
	if (!flow_action_has_entries(&rule->action))
		return 0;
	return rule->action.entries[0].hw_stats;
}

static int fot_take(struct fot_binding *b, struct fot_cookie *c,
		    const struct flow_rule *rule)
{
	struct fot_hold *h = fot_hold_get(c, b);

	if (!h)
		return -ENOMEM;
	h->held = true;
	h->hw_stats = rule ? fot_rule_hw_stats(rule) : 0;
	return 0;
}

static int fot_replace(struct fot_binding *b, struct fot_cookie *c,
		       const struct fot_call *call, const char **msg)
{
	struct fot_hold *h;

	*msg = fot_refusal(b, call);
	if (!*msg)
		return fot_take(b, c, call->rule);
	/* keep the cookie's id for the DESTROY that follows */
	h = fot_hold_get(c, b);
	if (h)
		h->held = false;
	return -EOPNOTSUPP;
}

static int fot_destroy(struct fot_binding *b, struct fot_cookie *c)
{
	struct fot_hold *h = fot_hold_find(c, b);
	int ret = h && h->held ? 0 : -ENOENT;

	if (h)
		fot_hold_put(h);
	return ret;
}

/* the counters for a rule whose first action allows hw_stats */
static enum flow_action_hw_stats fot_used_hw_stats(u8 allowed)
{
	if (!allowed || (allowed & FLOW_ACTION_HW_STATS_DELAYED))
		return FLOW_ACTION_HW_STATS_DELAYED;
	if (allowed & FLOW_ACTION_HW_STATS_IMMEDIATE)
		return FLOW_ACTION_HW_STATS_IMMEDIATE;
	return 0;
}

/* a device of ours answers its own counters, any other debugfs's */
static int fot_stats(struct fot_buf *buf, struct fot_binding *b,
		     struct fot_cookie *c, struct flow_stats *stats)
{
	struct fot_hold *h = fot_hold_find(c, b);
	enum flow_action_hw_stats used = 0;
	u64 pkts = 0, bytes = 0, drops = 0;
	const struct fot_counters *set = b->fd ? &b->fd->stats : &fot_gstats;

	if (h && h->held)
		used = fot_used_hw_stats(h->hw_stats);
	if (used) {
		pkts = set->pkts;
		bytes = set->bytes;
		drops = set->drops;
		flow_stats_update(stats, bytes, pkts, drops, jiffies, used);
	}
	fot_printf(buf, ", \"pkts\": %llu, \"bytes\": %llu, \"drops\": %llu",
		   pkts, bytes, drops);
	fot_printf(buf, ", \"hw_stats\": %u", used);
	return h && h->held ? 0 : -ENOENT;
}

static void fot_put_call(struct fot_buf *buf, const struct fot_call *call,
			 const struct fot_cookie *c)
{
	const struct flow_cls_common_offload *common = call->common;

	fot_printf(buf, ", \"cookie\": %u, \"chain\": %u, \"prio\": %u",
		   c ? c->id : 0, common->chain_index, common->prio);
	fot_printf(buf, ", \"proto\": %u", ntohs(common->protocol));
	if (call->flower)
		fot_printf(buf, ", \"classid\": %u", call->classid);
	fot_printf(buf, ", \"has_extack\": %s",
		   common->extack ? "true" : "false");
	if (call->rule && call->flower)
		fot_put_keys(buf, call->rule);
	if (call->rule && call->op == FOT_REPLACE)
		fot_put_actions(buf, &call->rule->action);
}

static int fot_do(struct fot_buf *buf, struct fot_binding *b,
		  struct fot_cookie *c, const struct fot_call *call,
		  const char **msg)
{
	if (!c)
		return -ENOMEM;
	switch (call->op) {
	case FOT_REPLACE:
		return fot_replace(b, c, call, msg);
	case FOT_TMPLT_CREATE:
		return fot_take(b, c, NULL);
	case FOT_DESTROY:
	case FOT_TMPLT_DESTROY:
		return fot_destroy(b, c);
	case FOT_STATS:
		return fot_stats(buf, b, c, call->stats);
	}
	return -EOPNOTSUPP;
}

/* NL_SET_ERR_MSG() wants a literal; msg is one of the static strings */
static void fot_set_extack(struct netlink_ext_ack *extack, const char *msg)
{
	do_trace_netlink_extack(msg);
	if (extack)
		extack->_msg = msg;
}

static int fot_handle(struct fot_binding *b, const struct fot_call *call)
{
	struct fot_buf buf = {};
	const char *msg = NULL;
	struct fot_cookie *c;
	int ret;

	mutex_lock(&fot_lock);
	c = fot_cookie_get(call->cookie, call->op == FOT_REPLACE ||
			   call->op == FOT_TMPLT_CREATE);
	fot_line_start(&buf, b->name, call->type, call->cmd);
	fot_put_call(&buf, call, c);
	ret = fot_do(&buf, b, c, call, &msg);
	fot_printf(&buf, ", \"result\": %d", ret);
	if (msg) {
		fot_set_extack(call->common->extack, msg);
		fot_printf(&buf, ", \"extack\": ");
		fot_str(&buf, msg);
	}
	fot_log_commit(&buf, b->fd);
	fot_cookie_gc(c);
	mutex_unlock(&fot_lock);
	return ret;
}

static const char * const fot_flower_cmds[] = {
	[FLOW_CLS_REPLACE] = "replace",
	[FLOW_CLS_DESTROY] = "destroy",
	[FLOW_CLS_STATS] = "stats",
	[FLOW_CLS_TMPLT_CREATE] = "tmplt_create",
	[FLOW_CLS_TMPLT_DESTROY] = "tmplt_destroy",
};

static const enum fot_op fot_flower_ops[] = {
	[FLOW_CLS_REPLACE] = FOT_REPLACE,
	[FLOW_CLS_DESTROY] = FOT_DESTROY,
	[FLOW_CLS_STATS] = FOT_STATS,
	[FLOW_CLS_TMPLT_CREATE] = FOT_TMPLT_CREATE,
	[FLOW_CLS_TMPLT_DESTROY] = FOT_TMPLT_DESTROY,
};

static int fot_flower(struct fot_binding *b, struct flow_cls_offload *f)
{
	struct fot_call call = {
		.type = "flower",
		.cookie = f->cookie,
		.common = &f->common,
		.stats = &f->stats,
		.flower = true,
		.classid = f->classid,
	};

	if (f->command >= ARRAY_SIZE(fot_flower_ops))
		return -EOPNOTSUPP;
	call.cmd = fot_flower_cmds[f->command];
	call.op = fot_flower_ops[f->command];
	if (call.op == FOT_REPLACE || call.op == FOT_TMPLT_CREATE)
		call.rule = f->rule;
	return fot_handle(b, &call);
}

static const char * const fot_mall_cmds[] = {
	[TC_CLSMATCHALL_REPLACE] = "replace",
	[TC_CLSMATCHALL_DESTROY] = "destroy",
	[TC_CLSMATCHALL_STATS] = "stats",
};

static const enum fot_op fot_mall_ops[] = {
	[TC_CLSMATCHALL_REPLACE] = FOT_REPLACE,
	[TC_CLSMATCHALL_DESTROY] = FOT_DESTROY,
	[TC_CLSMATCHALL_STATS] = FOT_STATS,
};

static int fot_matchall(struct fot_binding *b,
			struct tc_cls_matchall_offload *m)
{
	struct fot_call call = {
		.type = "matchall",
		.cookie = m->cookie,
		.common = &m->common,
		.stats = &m->stats,
	};

	if (m->command >= ARRAY_SIZE(fot_mall_ops))
		return -EOPNOTSUPP;
	call.cmd = fot_mall_cmds[m->command];
	call.op = fot_mall_ops[m->command];
	if (call.op == FOT_REPLACE)
		call.rule = m->rule;
	return fot_handle(b, &call);
}

static int fot_setup_cb(enum tc_setup_type type, void *type_data,
			void *cb_priv)
{
	switch (type) {
	case TC_SETUP_CLSFLOWER:
		return fot_flower(cb_priv, type_data);
	case TC_SETUP_CLSMATCHALL:
		return fot_matchall(cb_priv, type_data);
	default:
		return -EOPNOTSUPP;
	}
}

/* ---- block binding ---- */

static void fot_log_block(const struct fot_binding *b, const char *cmd)
{
	struct fot_buf buf = {};

	fot_line_start(&buf, b->name, "block", cmd);
	fot_printf(&buf, ", \"binder\": \"%s\", \"shared\": %s, \"result\": 0",
		   fot_binder_name(b->binder), b->shared ? "true" : "false");
	fot_log_commit(&buf, b->fd);
}

static bool fot_taken(const char *name)
{
	unsigned int i;

	for (i = 0; i < fot_n_devices; i++)
		if (!strncmp(fot_devices[i], name, IFNAMSIZ))
			return true;
	return false;
}

/*
 * The flow_block_cb's release: tc frees the callback (unbind, indirect
 * cleanup, or a bind it undoes).  Takes fot_lock.
 */
static void fot_release(void *cb_priv)
{
	struct fot_binding *b = cb_priv;
	struct fot_hold *h, *tmp;
	struct fot_cookie *c;

	mutex_lock(&fot_lock);
	fot_log_block(b, "release");
	list_for_each_entry_safe(h, tmp, &b->holds, bnode) {
		c = h->c;
		fot_hold_put(h);
		fot_cookie_gc(c);
	}
	list_del(&b->node);
	mutex_unlock(&fot_lock);
	kfree(b);
}

static struct fot_binding *fot_binding_new(struct net_device *dev,
					   struct Qdisc *sch,
					   struct flow_block_offload *bo,
					   struct fot_dev *fd)
{
	struct fot_binding *b = kzalloc(sizeof(*b), GFP_KERNEL);

	if (!b)
		return NULL;
	b->fd = fd;
	b->block = bo->block;
	b->dev = dev;
	b->sch = sch;
	b->binder = bo->binder_type;
	b->shared = bo->block_shared;
	strscpy(b->name, dev->name, sizeof(b->name));
	INIT_LIST_HEAD(&b->holds);
	return b;
}

/* b's callback goes to tc (bo), b to fot_bindings */
static void fot_binding_add(struct fot_binding *b,
			    struct flow_block_cb *block_cb,
			    struct flow_block_offload *bo)
{
	INIT_LIST_HEAD(&block_cb->driver_list);
	flow_block_cb_add(block_cb, bo);
	bo->unlocked_driver_cb = true;
	list_add(&b->node, &fot_bindings);
	fot_log_block(b, "bind");
}

static int fot_bind(struct net_device *dev, struct Qdisc *sch,
		    struct flow_block_offload *bo, void *data,
		    void (*cleanup)(struct flow_block_cb *block_cb))
{
	struct flow_block_cb *block_cb;
	struct fot_binding *b;
	int err = -EOPNOTSUPP;

	mutex_lock(&fot_lock);
	if (!fot_taken(dev->name))
		goto out;
	err = -ENOMEM;
	b = fot_binding_new(dev, sch, bo, NULL);
	if (!b)
		goto out;
	block_cb = flow_indr_block_cb_alloc(fot_setup_cb, b, b, fot_release,
					    bo, dev, sch, data, &fot_bindings,
					    cleanup);
	if (IS_ERR(block_cb)) {
		err = PTR_ERR(block_cb);
		kfree(b);
		goto out;
	}
	fot_binding_add(b, block_cb, bo);
	err = 0;
out:
	mutex_unlock(&fot_lock);
	return err;
}

/* TC_SETUP_BLOCK's bind for a device of ours: every block, any binder */
static int fot_direct_bind(struct net_device *dev,
			   struct flow_block_offload *bo)
{
	struct flow_block_cb *block_cb;
	struct fot_binding *b;
	int err = -ENOMEM;

	mutex_lock(&fot_lock);
	b = fot_binding_new(dev, bo->sch, bo, netdev_priv(dev));
	if (!b)
		goto out;
	block_cb = flow_block_cb_alloc(fot_setup_cb, b, b, fot_release);
	if (IS_ERR(block_cb)) {
		err = PTR_ERR(block_cb);
		kfree(b);
		goto out;
	}
	fot_binding_add(b, block_cb, bo);
	err = 0;
out:
	mutex_unlock(&fot_lock);
	return err;
}

static struct fot_binding *fot_binding_find(struct net_device *dev,
					    struct Qdisc *sch,
					    struct flow_block_offload *bo)
{
	struct fot_binding *b;

	list_for_each_entry(b, &fot_bindings, node)
		if (!b->unbound && b->block == bo->block && b->dev == dev &&
		    b->sch == sch && b->binder == bo->binder_type)
			return b;
	return NULL;
}

/* the unbind of either kind: the callback goes back to tc (bo) */
static int fot_unbind(struct net_device *dev, struct Qdisc *sch,
		      struct flow_block_offload *bo, bool indirect)
{
	struct flow_block_cb *block_cb;
	struct fot_binding *b;
	int err = -ENOENT;

	mutex_lock(&fot_lock);
	b = fot_binding_find(dev, sch, bo);
	if (!b)
		goto out;
	block_cb = flow_block_cb_lookup(bo->block, fot_setup_cb, b);
	if (!block_cb)
		goto out;
	b->unbound = true;
	if (indirect)
		flow_indr_block_cb_remove(block_cb, bo);
	else
		flow_block_cb_remove(block_cb, bo);
	fot_log_block(b, "unbind");
	err = 0;
out:
	mutex_unlock(&fot_lock);
	return err;
}

/* flow_indr_block_bind_cb_t: called for every device without ndo_setup_tc */
static int fot_indr_setup(struct net_device *dev, struct Qdisc *sch,
			  void *cb_priv, enum tc_setup_type type,
			  void *type_data, void *data,
			  void (*cleanup)(struct flow_block_cb *block_cb))
{
	struct flow_block_offload *bo = type_data;

	if (type != TC_SETUP_BLOCK || !dev || !sch)
		return -EOPNOTSUPP;
	switch (bo->command) {
	case FLOW_BLOCK_BIND:
		return fot_bind(dev, sch, bo, data, cleanup);
	case FLOW_BLOCK_UNBIND:
		return fot_unbind(dev, sch, bo, true);
	default:
		return -EOPNOTSUPP;
	}
}

/* ndo_setup_tc of a device of ours: TC_SETUP_BLOCK only, as a NIC's */
static int fot_ndo_setup_tc(struct net_device *dev, enum tc_setup_type type,
			    void *type_data)
{
	struct flow_block_offload *bo = type_data;

	if (type != TC_SETUP_BLOCK)
		return -EOPNOTSUPP;
	switch (bo->command) {
	case FLOW_BLOCK_BIND:
		return fot_direct_bind(dev, bo);
	case FLOW_BLOCK_UNBIND:
		return fot_unbind(dev, bo->sch, bo, false);
	default:
		return -EOPNOTSUPP;
	}
}

/* ---- debugfs ---- */

static char *fot_user_string(const char __user *ubuf, size_t count)
{
	if (count > FOT_WRITE_MAX)
		return ERR_PTR(-E2BIG);
	return memdup_user_nul(ubuf, count);
}

/* next whitespace-separated word of *s, or NULL */
static char *fot_word(char **s)
{
	char *w;

	do {
		w = strsep(s, " \t\n");
	} while (w && !*w);
	return w;
}

static int fot_devices_show(struct seq_file *m, void *v)
{
	unsigned int i;

	mutex_lock(&fot_lock);
	for (i = 0; i < fot_n_devices; i++)
		seq_printf(m, "%s%s", i ? " " : "", fot_devices[i]);
	mutex_unlock(&fot_lock);
	seq_puts(m, "\n");
	return 0;
}

static int fot_devices_parse(char *s, char (*names)[IFNAMSIZ])
{
	unsigned int n = 0;
	char *w;

	while ((w = fot_word(&s))) {
		if (n == FOT_MAX_DEVICES || strlen(w) >= IFNAMSIZ)
			return -EINVAL;
		strscpy(names[n++], w, IFNAMSIZ);
	}
	return n;
}

static ssize_t fot_devices_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	char (*names)[IFNAMSIZ];
	char *s;
	int n;

	s = fot_user_string(ubuf, count);
	if (IS_ERR(s))
		return PTR_ERR(s);
	names = kcalloc(FOT_MAX_DEVICES, IFNAMSIZ, GFP_KERNEL);
	n = names ? fot_devices_parse(s, names) : -ENOMEM;
	kfree(s);
	if (n < 0) {
		kfree(names);
		return n;
	}
	mutex_lock(&fot_lock);
	swap(fot_devices, names);
	fot_n_devices = n;
	mutex_unlock(&fot_lock);
	kfree(names);
	return count;
}

static int fot_devices_open(struct inode *inode, struct file *file)
{
	return single_open(file, fot_devices_show, NULL);
}

static const struct file_operations fot_devices_fops = {
	.owner = THIS_MODULE,
	.open = fot_devices_open,
	.read = seq_read,
	.write = fot_devices_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* "PKTS BYTES DROPS" -> c; -EINVAL if it is not that */
static int fot_counters_parse(const char *s, struct fot_counters *c)
{
	if (sscanf(s, "%llu %llu %llu", &c->pkts, &c->bytes, &c->drops) != 3)
		return -EINVAL;
	return 0;
}

static int fot_stats_show(struct seq_file *m, void *v)
{
	mutex_lock(&fot_lock);
	seq_printf(m, "%llu %llu %llu\n",
		   fot_gstats.pkts, fot_gstats.bytes, fot_gstats.drops);
	mutex_unlock(&fot_lock);
	return 0;
}

static ssize_t fot_stats_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct fot_counters c;
	char *s;
	int err;

	s = fot_user_string(ubuf, count);
	if (IS_ERR(s))
		return PTR_ERR(s);
	err = fot_counters_parse(s, &c);
	kfree(s);
	if (err)
		return err;
	mutex_lock(&fot_lock);
	fot_gstats = c;
	mutex_unlock(&fot_lock);
	return count;
}

static int fot_stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, fot_stats_show, NULL);
}

static const struct file_operations fot_stats_fops = {
	.owner = THIS_MODULE,
	.open = fot_stats_open,
	.read = seq_read,
	.write = fot_stats_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* "all", "none" or the key names, and a newline */
static void fot_refuse_put(struct fot_buf *b, bool all, unsigned long keys)
{
	const char *sep = "";
	int id;

	if (all)
		fot_printf(b, "all");
	else if (!keys)
		fot_printf(b, "none");
	for (id = 0; id < FLOW_DISSECTOR_KEY_MAX && !all; id++) {
		if (!(keys & BIT(id)))
			continue;
		fot_printf(b, "%s%s", sep, fot_keys[id].name);
		sep = " ";
	}
	fot_printf(b, "\n");
}

static int fot_refuse_show(struct seq_file *m, void *v)
{
	struct fot_buf b = {};

	mutex_lock(&fot_lock);
	fot_refuse_put(&b, fot_refuse_all, fot_refuse_keys);
	mutex_unlock(&fot_lock);
	if (!b.failed)
		seq_puts(m, b.s);
	kfree(b.s);
	return b.failed ? -ENOMEM : 0;
}

static int fot_key_id(const char *name)
{
	int id;

	for (id = 0; id < FLOW_DISSECTOR_KEY_MAX; id++)
		if (fot_keys[id].name && !strcmp(fot_keys[id].name, name))
			return id;
	return -EINVAL;
}

/* "none", "all" or key names: *all and *keys; -EINVAL on a bad word */
static int fot_refuse_parse(char *s, bool *all, unsigned long *keys)
{
	char *w;
	int id;

	*all = false;
	*keys = 0;
	while ((w = fot_word(&s))) {
		if (!strcmp(w, "none"))
			continue;
		if (!strcmp(w, "all")) {
			*all = true;
			continue;
		}
		id = fot_key_id(w);
		if (id < 0)
			return id;
		*keys |= BIT(id);
	}
	return 0;
}

static ssize_t fot_refuse_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	unsigned long keys;
	bool all;
	char *s;
	int err;

	s = fot_user_string(ubuf, count);
	if (IS_ERR(s))
		return PTR_ERR(s);
	err = fot_refuse_parse(s, &all, &keys);
	kfree(s);
	if (err)
		return err;
	mutex_lock(&fot_lock);
	fot_refuse_all = all;
	fot_refuse_keys = keys;
	mutex_unlock(&fot_lock);
	return count;
}

static int fot_refuse_open(struct inode *inode, struct file *file)
{
	return single_open(file, fot_refuse_show, NULL);
}

static const struct file_operations fot_refuse_fops = {
	.owner = THIS_MODULE,
	.open = fot_refuse_open,
	.read = seq_read,
	.write = fot_refuse_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* the final line of a log that overflowed */
static const char fot_truncated[] = "";

static void *fot_log_at(loff_t pos)
{
	if (pos < fot_glog.n)
		return xa_load(&fot_glog.lines, pos);
	if (pos == fot_glog.n && fot_glog.dropped)
		return (void *)fot_truncated;
	return NULL;
}

/* fot_lock is held from start to stop */
static void *fot_log_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&fot_lock);
	return fot_log_at(*pos);
}

static void *fot_log_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return fot_log_at(*pos);
}

static void fot_log_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&fot_lock);
}

static int fot_log_show(struct seq_file *m, void *v)
{
	if (v == fot_truncated)
		seq_printf(m, "{\"truncated\": %llu}\n", fot_glog.dropped);
	else
		seq_printf(m, "%s\n", (char *)v);
	return 0;
}

static const struct seq_operations fot_log_sops = {
	.start = fot_log_start,
	.next = fot_log_next,
	.stop = fot_log_stop,
	.show = fot_log_show,
};

static int fot_log_open(struct inode *inode, struct file *file)
{
	return seq_open(file, &fot_log_sops);
}

static ssize_t fot_log_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	mutex_lock(&fot_lock);
	fot_log_clear(&fot_glog);
	mutex_unlock(&fot_lock);
	return count;
}

static const struct file_operations fot_log_fops = {
	.owner = THIS_MODULE,
	.open = fot_log_open,
	.read = seq_read,
	.write = fot_log_write,
	.llseek = seq_lseek,
	.release = seq_release,
};

/* ---- devices of our own: kind fltest ---- */

static struct fot_dev *fot_dev_of(struct device *d)
{
	return netdev_priv(to_net_dev(d));
}

static ssize_t stats_show(struct device *d, struct device_attribute *attr,
			  char *buf)
{
	struct fot_dev *fd = fot_dev_of(d);
	ssize_t n;

	mutex_lock(&fot_lock);
	n = sysfs_emit(buf, "%llu %llu %llu\n", fd->stats.pkts,
		       fd->stats.bytes, fd->stats.drops);
	mutex_unlock(&fot_lock);
	return n;
}

static ssize_t stats_store(struct device *d, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	struct fot_dev *fd = fot_dev_of(d);
	struct fot_counters c;
	int err;

	err = fot_counters_parse(buf, &c);
	if (err)
		return err;
	mutex_lock(&fot_lock);
	fd->stats = c;
	mutex_unlock(&fot_lock);
	return count;
}
static DEVICE_ATTR_RW(stats);

static ssize_t refuse_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	struct fot_dev *fd = fot_dev_of(d);
	struct fot_buf b = {};
	ssize_t n;

	mutex_lock(&fot_lock);
	fot_refuse_put(&b, fd->refuse_all, fd->refuse_keys);
	mutex_unlock(&fot_lock);
	n = b.failed ? -ENOMEM : sysfs_emit(buf, "%s", b.s);
	kfree(b.s);
	return n;
}

static ssize_t refuse_store(struct device *d, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct fot_dev *fd = fot_dev_of(d);
	unsigned long keys;
	bool all;
	char *s;
	int err;

	s = kstrndup(buf, count, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	err = fot_refuse_parse(s, &all, &keys);
	kfree(s);
	if (err)
		return err;
	mutex_lock(&fot_lock);
	fd->refuse_all = all;
	fd->refuse_keys = keys;
	mutex_unlock(&fot_lock);
	return count;
}
static DEVICE_ATTR_RW(refuse);

/* the part of text (len bytes at *pos of a file) in [off, off + count) */
static void fot_window(char *buf, loff_t off, size_t count, loff_t *pos,
		       const char *text, size_t len)
{
	loff_t start = max(off, *pos);
	loff_t end = min_t(loff_t, off + count, *pos + len);

	if (start < end)
		memcpy(buf + (start - off), text + (start - *pos), end - start);
	*pos += len;
}

/* the device's log, as debugfs shows the log of every line */
static ssize_t fot_dev_log_read(struct file *file, struct kobject *kobj,
				struct bin_attribute *attr, char *buf,
				loff_t off, size_t count)
{
	struct fot_dev *fd = fot_dev_of(kobj_to_dev(kobj));
	char last[40];
	loff_t pos = 0;
	unsigned long i;
	char *s;

	mutex_lock(&fot_lock);
	xa_for_each(&fd->log.lines, i, s) {
		fot_window(buf, off, count, &pos, s, strlen(s));
		fot_window(buf, off, count, &pos, "\n", 1);
	}
	if (fd->log.dropped) {
		snprintf(last, sizeof(last), "{\"truncated\": %llu}\n",
			 fd->log.dropped);
		fot_window(buf, off, count, &pos, last, strlen(last));
	}
	mutex_unlock(&fot_lock);
	return clamp_t(loff_t, pos - off, 0, count);
}

/* a write clears the device's log */
static ssize_t fot_dev_log_write(struct file *file, struct kobject *kobj,
				 struct bin_attribute *attr, char *buf,
				 loff_t off, size_t count)
{
	struct fot_dev *fd = fot_dev_of(kobj_to_dev(kobj));

	mutex_lock(&fot_lock);
	fot_log_clear(&fd->log);
	mutex_unlock(&fot_lock);
	return count;
}

static struct bin_attribute fot_dev_attr_log =
	__BIN_ATTR(log, 0644, fot_dev_log_read, fot_dev_log_write, 0);

static struct attribute *fot_dev_attrs[] = {
	&dev_attr_stats.attr,
	&dev_attr_refuse.attr,
	NULL,
};

static struct bin_attribute *fot_dev_bin_attrs[] = {
	&fot_dev_attr_log,
	NULL,
};

/* /sys/class/net/DEV/fltest/: what debugfs has, for this device alone */
static const struct attribute_group fot_dev_group = {
	.name = FOT_KIND,
	.attrs = fot_dev_attrs,
	.bin_attrs = fot_dev_bin_attrs,
};

/* a device with no wire: what it sends is dropped */
static netdev_tx_t fot_dev_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev_core_stats_tx_dropped_inc(dev);
	kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops fot_netdev_ops = {
	.ndo_start_xmit		= fot_dev_xmit,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_setup_tc		= fot_ndo_setup_tc,
};

static void fot_get_drvinfo(struct net_device *dev,
			    struct ethtool_drvinfo *info)
{
	strscpy(info->driver, KBUILD_MODNAME, sizeof(info->driver));
}

static const struct ethtool_ops fot_ethtool_ops = {
	.get_drvinfo		= fot_get_drvinfo,
};

/*
 * The device's priv_destructor, after its unregistration (or a failed
 * registration): tc has released its bindings with its qdiscs.
 */
static void fot_dev_free(struct net_device *dev)
{
	struct fot_dev *fd = netdev_priv(dev);
	struct fot_binding *b;

	mutex_lock(&fot_lock);
	list_for_each_entry(b, &fot_bindings, node)
		if (WARN_ON_ONCE(b->fd == fd))
			b->fd = NULL;
	fot_log_clear(&fd->log);
	mutex_unlock(&fot_lock);
}

static void fot_dev_setup(struct net_device *dev)
{
	struct fot_dev *fd = netdev_priv(dev);

	ether_setup(dev);
	dev->netdev_ops = &fot_netdev_ops;
	dev->ethtool_ops = &fot_ethtool_ops;
	dev->needs_free_netdev = true;
	dev->priv_destructor = fot_dev_free;
	dev->sysfs_groups[0] = &fot_dev_group;
	dev->flags |= IFF_NOARP;
	dev->flags &= ~IFF_MULTICAST;
	dev->priv_flags |= IFF_LIVE_ADDR_CHANGE | IFF_NO_QUEUE;
	/* tc_can_offload(); ethtool -K DEV hw-tc-offload off turns it off */
	dev->features |= NETIF_F_LLTX | NETIF_F_HW_TC;
	dev->hw_features |= NETIF_F_HW_TC;
	eth_hw_addr_random(dev);
	fd->dev = dev;
	xa_init(&fd->log.lines);
}

static int fot_dev_validate(struct nlattr *tb[], struct nlattr *data[],
			    struct netlink_ext_ack *extack)
{
	if (tb[IFLA_ADDRESS]) {
		if (nla_len(tb[IFLA_ADDRESS]) != ETH_ALEN)
			return -EINVAL;
		if (!is_valid_ether_addr(nla_data(tb[IFLA_ADDRESS])))
			return -EADDRNOTAVAIL;
	}
	return 0;
}

/* ip link add NAME type fltest: more devices, in any namespace */
static struct rtnl_link_ops fot_link_ops __read_mostly = {
	.kind		= FOT_KIND,
	.priv_size	= sizeof(struct fot_dev),
	.setup		= fot_dev_setup,
	.validate	= fot_dev_validate,
};

/* rtnl held */
static int __init fot_dev_create(void)
{
	struct net_device *dev;
	int err;

	dev = alloc_netdev(sizeof(struct fot_dev), FOT_KIND "%d",
			   NET_NAME_ENUM, fot_dev_setup);
	if (!dev)
		return -ENOMEM;
	dev->rtnl_link_ops = &fot_link_ops;
	err = register_netdevice(dev);
	if (err < 0)
		free_netdev(dev);
	return err;
}

/* the link kind and ndevs devices of it, as dummy makes its devices */
static int __init fot_devs_init(void)
{
	unsigned int i;
	int err;

	down_write(&pernet_ops_rwsem);
	rtnl_lock();
	err = __rtnl_link_register(&fot_link_ops);
	if (err < 0)
		goto out;
	for (i = 0; i < ndevs && !err; i++) {
		err = fot_dev_create();
		cond_resched();
	}
	/* unregisters the devices made */
	if (err < 0)
		__rtnl_link_unregister(&fot_link_ops);
out:
	rtnl_unlock();
	up_write(&pernet_ops_rwsem);
	return err;
}

/* ---- module ---- */

static void fot_cookies_free(void)
{
	struct hlist_node *tmp;
	struct fot_cookie *c;
	int bkt;

	hash_for_each_safe(fot_cookies, bkt, tmp, c, hnode) {
		/* every hold went with its binding */
		WARN_ON_ONCE(!list_empty(&c->holds));
		fot_cookie_free(c);
	}
}

/* what is left once no callback or handler can run */
static void fot_state_free(void)
{
	WARN_ON_ONCE(!list_empty(&fot_bindings));
	fot_cookies_free();
	fot_log_clear(&fot_glog);
	kfree(fot_devices);
	fot_devices = NULL;
}

static int __init fot_init(void)
{
	int err;

	BUILD_BUG_ON(FLOW_DISSECTOR_KEY_L2TPV3 + 1 != FLOW_DISSECTOR_KEY_MAX);
	BUILD_BUG_ON(FLOW_ACTION_CONTINUE + 1 != NUM_FLOW_ACTIONS);
	BUILD_BUG_ON(FLOW_DISSECTOR_KEY_MAX > BITS_PER_LONG);

	/*
	 * vermagic does not tell apart two builds of one release, such as
	 * the guest's kernel and its debug build (KASAN and lockdep: other
	 * layouts of what this module shares with the kernel): refuse any
	 * kernel but the one this module was built against.
	 */
	if (strcmp(init_utsname()->version, UTS_VERSION)) {
		pr_err("built for the kernel \"%s\", not \"%s\"\n",
		       UTS_VERSION, init_utsname()->version);
		return -ENOEXEC;
	}

	fot_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(fot_dir))
		return PTR_ERR(fot_dir);
	debugfs_create_file("devices", 0600, fot_dir, NULL, &fot_devices_fops);
	debugfs_create_file("log", 0600, fot_dir, NULL, &fot_log_fops);
	debugfs_create_file("stats", 0600, fot_dir, NULL, &fot_stats_fops);
	debugfs_create_file("refuse", 0600, fot_dir, NULL, &fot_refuse_fops);

	err = flow_indr_dev_register(fot_indr_setup, &fot_bindings);
	if (err)
		goto err_debugfs;
	err = fot_devs_init();
	if (err)
		goto err_indr;
	return 0;

err_indr:
	flow_indr_dev_unregister(fot_indr_setup, &fot_bindings, fot_release);
err_debugfs:
	debugfs_remove_recursive(fot_dir);
	fot_state_free();
	return err;
}

static void __exit fot_exit(void)
{
	/* no debugfs handler runs after this */
	debugfs_remove_recursive(fot_dir);
	/*
	 * Every device of kind fltest, in every namespace, goes: tc unbinds
	 * its blocks and releases its bindings on the way.
	 */
	rtnl_link_unregister(&fot_link_ops);
	/* tc unbinds and releases every other binding */
	flow_indr_dev_unregister(fot_indr_setup, &fot_bindings, fot_release);
	/* no callback runs after this */
	fot_state_free();
}

module_init(fot_init);
module_exit(fot_exit);

MODULE_DESCRIPTION("flower offload test driver: records what tc gives drivers");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RTNL_LINK(FOT_KIND);
