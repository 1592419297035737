// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Flower classifier.
 *
 * Copyright (c) 2015 Jiri Pirko <jiri@resnulli.us>
 *
 * Classifies packets on a combination of header fields picked out by the
 * programmable flow dissector.  The design is Jiri Pirko's original
 * flower proposal (net-next, April 2015), written afresh against the 6.1
 * classifier API: each mask has an rhashtable of its filters keyed by the
 * masked flow key, so the cost of classifying does not grow with the
 * number of filters of a mask.
 *
 * One classifier instance (one prio and protocol) holds any number of
 * masks, as flower always has.  They are tried in the order they
 * were added, the oldest first, and the first filter found wins.  The
 * packet is dissected once per instance, not once per mask, with the
 * union of the masks' keys, and each mask then costs one masked hash and
 * one lookup.  A single mask is the fast path.  A port range does not
 * fit a hash: a mask with ranges is looked up once per distinct range
 * that holds the packet's port, in the order the filters came, and an
 * index finds those ranges without a walk (see "Port range index").
 *
 * Dissection: when every key of an instance is one of Ethernet and IP
 * addresses, TOS and TTL, ports, or a metadata key (dissected apart),
 * fl_dissect_l3l4() reads an untagged IPv4 or IPv6 packet's keys itself,
 * as __skb_flow_dissect() would write them, without that function's
 * walk over every protocol and key.  Any packet it is not sure of (a
 * tag, another ethertype, a bad header, an extension header, an
 * encapsulation, a BPF flow dissector attached) goes to the dissector.
 *
 * Locking: the control operations do not need RTNL
 * (TCF_PROTO_OPS_DOIT_UNLOCKED), so requests on one instance run in
 * parallel.  What they share is changed under head->lock, a mutex: the
 * published set of masks, the handle IDR, the masks' tables and filter
 * counts, and filter->deleted.  A request parses its attributes and
 * validates its actions before it takes the lock, so the lock is held
 * only for the lookups and pointer updates that make the change.  Lock
 * order: RTNL, then head->lock, then tp->lock (for tp->deleting, which
 * cls_api reads under it).  Filters are refcounted: the instance holds
 * one reference while a filter is in the IDR, and fl_get() and fl_walk()
 * take one for their caller; a mask is held by the instance while it is
 * in the set and by every filter that points to it, so a dump of a
 * filter deleted meanwhile still reads its mask.  fl_destroy() runs when
 * the last reference to the instance is gone; nothing else runs then.
 *
 * RCU: fl_classify() runs under rcu_read_lock_bh() and reaches everything
 * through one pointer, head->masks: the masks, each carrying its table,
 * and the dissector of their keys.  That set is never changed once
 * published; a mask that comes or goes publishes a new set with
 * rcu_assign_pointer(), which orders the set's and a new mask's
 * initialisation before the pointer on every CPU ordering (the reader's
 * rcu_dereference_bh() is an address dependency).  A filter, mask, set
 * or instance that is taken away is freed after an RCU grace period.
 *
 * Offload: drivers bound to the block are given each filter that is not
 * skip_hw as a flow_cls_offload rule, as the tree's other classifiers
 * give theirs: the key and mask of the filter's mask, with a dissector of
 * that mask's keys alone (fl_hw_dissector_init(), never the union that
 * classify uses).  The calls into cls_api (tc_setup_cb_*()) take
 * block->cb_lock and, for drivers that want it, RTNL, so they are made
 * without head->lock.  A filter that is also in software enters its table
 * first and is offered to drivers after: a delete that ran in between has
 * taken nothing from them, so fl_insert_sw() takes the rule back.  A
 * skip_sw filter is offered first, and joins the instance only if a
 * driver took it, so that a refusal leaves a filter it was to replace in
 * place; that path holds RTNL, which fl_reoffload() holds too.  Filters
 * offered to drivers are on head->hw_filters (under tp->lock, changed from
 * within tc_setup_cb_add() and tc_setup_cb_destroy() under block->cb_lock),
 * which fl_reoffload() plays back to a driver that joins the block.  A
 * filter's flags and in_hw_count are cls_api's to change, under tp->lock.
 *
 * Flow cache: an instance with FL_CACHE_MIN_MASKS masks or more has a
 * small direct-mapped cache per CPU in front of the mask walk
 * (struct fl_cache).  Its key is the packet's dissected key over the
 * bytes fl_dissect() writes, [0, masks->clear_end), which hold every
 * byte a mask reads; its value is the filter the walk found, or none.
 * A hit costs one hash of those bytes, one compare and a generation
 * check; a miss adds a copy of the key into the entry to the walk.  The
 * rules that keep a hit equal to what the walk would give:
 *
 *  - The walk's result is a function of the key bytes and the
 *    instance's state alone.  The hash key, the tunnel metadata and the
 *    conntrack state are keys, dissected into those bytes; a port range
 *    is looked up from the dissected ports, which the entry takes before
 *    the walk writes the ranges into the packet's key; a skip_sw
 *    filter is skipped by the walk, and a filter's skip_sw never changes.
 *    The filter's actions and result are read through the pointer, as
 *    after a walk.  The cache holds raw key bytes, not masked ones: two
 *    packets equal in them are equal under every mask.
 *  - Generation: every change classify can see (a filter in or out of
 *    a table or a range walk, a set of masks published or appended to)
 *    is followed, under head->lock, by fl_cache_changed(), which bumps
 *    cache->gen with release semantics once the change is visible.
 *    Classify loads cache->gen with acquire before it loads the set of
 *    masks and walks it, and tags the entry it writes with that value;
 *    an entry is used only with the current generation.  Once a bump is
 *    visible, no entry older than the change it follows is hit.
 *  - Lifetime: a filter leaves its table, the generation is bumped and
 *    only then, after head->lock, is it freed, a grace period after its
 *    removal.  A classify whose read-side section began after that
 *    grace period did sees the bump (or the cache that replaced this
 *    one), so an entry pointing to the filter is never hit there; one
 *    that began before holds the filter off as a walk would.
 *  - Wrap-around: a cache's generation starts at FL_CACHE_GEN_INIT (so
 *    that the wrap is reached within some hundred changes, as jiffies
 *    start near theirs) and is never bumped past U32_MAX: the change
 *    that would wrap it publishes a fresh cache instead (all entries
 *    empty, gen 0 is never current, generations from 1) and frees the
 *    old one after a grace period.  A classify uses the generation of
 *    the cache it loaded and writes only to that cache, so a generation
 *    is never reused within a cache, on 32-bit CPUs as on 64-bit ones.
 *    Publishing a cache (rcu_assign_pointer(), after the set of masks
 *    it serves) stands for a bump: classify loads the cache pointer,
 *    then its generation (acquire), then the set.  A cache whose span
 *    is not the loaded set's clear_end (a change being made) is not
 *    used.  A cache is allocated under head->lock (GFP_KERNEL), as a set
 *    of masks is; out of memory, the instance goes without a cache until
 *    its next change.  Caches are freed by call_rcu(), with the head
 *    (fl_head_free_work()), and unregister_tcf_proto_ops()'s
 *    rcu_barrier() waits for them before the module goes.
 *  - Entries are per CPU, read and written only by classify on their CPU
 *    with BH off, so nothing else runs there between the lookup and the
 *    write.  Actions, which may classify again (mirred to an ingress),
 *    run after the entry is written and after a hit has its filter.
 *  - Memory: FL_CACHE_SIZE bytes per possible CPU per instance with a
 *    cache: as many entries (a power of two, at least one) as fit, each
 *    16 bytes (12 on 32-bit) and the key span.  An instance with fewer
 *    masks has no cache, costs one load and branch more per packet
 *    than without the cache, and no memory.  A miss costs the walk plus
 *    one hash and one copy of the span, bytes fl_dissect() has just
 *    cleared, and one compare of two hashes: about what one more mask's
 *    lookup costs, whatever the number of masks, against at least
 *    FL_CACHE_MIN_MASKS lookups that a hit saves.  The hash is seeded
 *    per cache: a flood of colliding keys costs misses, nothing more.
 *
 * Port range index: a mask with one ranged port (dst or src, not both)
 * gets, from a work item (head->range_work), an index of its filters'
 * distinct ranges (struct fl_range_index): the segments into which their
 * bounds cut 0..65535, and per segment the ranges that hold it, in the
 * order of the first filter of each range on mask->range_filters, which
 * is the order the walk tries them.  Classify binary-searches the port's
 * segment and looks the mask's table up once per range there, in that
 * order: the first filter found is the one the walk would find, in
 * O(log ranges) plus one lookup per range holding the port.
 *
 *  - After a change to a mask's ranges (a filter in or out of
 *    range_filters), under head->lock, a mask of at most
 *    FL_RANGE_SYNC_MAX filters gets a new index at once (a build of
 *    that many costs some microseconds).  A larger one loses its index
 *    and the work builds a new one under head->lock
 *    FL_RANGE_INDEX_DELAY later, or FL_RANGE_BUILD_SHARE times as long
 *    as its last build took if that is later: a batch of requests pays
 *    for a few builds, not one per request, and waits on them for at
 *    most about 1/FL_RANGE_BUILD_SHARE of its time (a build is a sort
 *    of the ranges).  Until then classify walks.
 *    The table stays the only judge of which filters exist: an index
 *    names ranges, never filters, so a classify that holds the index of
 *    before the change finds a filter the walk of that moment would, or
 *    one of a range that has just lost its first filter, never a filter
 *    that has left its table.
 *  - An index is immutable once published (rcu_assign_pointer()), freed
 *    with kvfree_rcu(), and with the mask.  fl_destroy() cancels the
 *    work and waits for it before the instance goes.
 *  - Bounds: a mask whose port lies in more than FL_RANGE_DEPTH nested
 *    ranges, or with both ports ranged, has no index and walks; so a
 *    packet costs at most FL_RANGE_DEPTH lookups with an index.  Memory:
 *    at most 2 * ranges + 1 segments of 6 bytes and FL_RANGE_DEPTH
 *    entries of 4 bytes each.
 */

#include <linux/kernel.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/rhashtable.h>
#include <linux/workqueue.h>
#include <linux/idr.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/rtnetlink.h>
#include <linux/netdevice.h>
#include <linux/bitops.h>
#include <linux/hash.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sort.h>

#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/in6.h>
#include <linux/ip.h>
#include <linux/mpls.h>
#include <linux/ppp_defs.h>
#include <linux/if_tunnel.h>
#include <linux/netfilter/nf_conntrack_common.h>

#include <net/sch_generic.h>
#include <net/pkt_sched.h>
#include <net/pkt_cls.h>
#include <net/flow_dissector.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/dsfield.h>
#include <net/geneve.h>
#include <net/vxlan.h>
#include <net/erspan.h>
#include <net/gtp.h>

/* The keys most filters use come first and the rarer ones last: classify
 * clears the key up to the end of the last key the instance uses.  The
 * filter tables hash and compare only the longs a mask is not zero in
 * (mask->words), wherever they lie: basic and control come first, so
 * that the protocol, ip_proto and addr_type share the first long (a
 * filter on an address and the protocol reads two longs, not three).
 */
struct fl_flow_key {
	struct flow_dissector_key_basic basic;
	struct flow_dissector_key_control control;
	struct flow_dissector_key_meta meta;	/* ingress_ifindex only */
	struct flow_dissector_key_eth_addrs eth;
	struct flow_dissector_key_vlan vlan;
	union {
		struct flow_dissector_key_ipv4_addrs ipv4;
		struct flow_dissector_key_ipv6_addrs ipv6;
	};
	struct flow_dissector_key_ports tp;
	struct flow_dissector_key_ports_range tp_range;
	struct flow_dissector_key_icmp icmp;
	struct flow_dissector_key_arp arp;
	struct flow_dissector_key_ip ip;
	struct flow_dissector_key_tcp tcp;
	struct flow_dissector_key_vlan cvlan;
	struct flow_dissector_key_num_of_vlans num_of_vlans;
	struct flow_dissector_key_pppoe pppoe;
	struct flow_dissector_key_l2tpv3 l2tpv3;
	struct flow_dissector_key_mpls mpls;
	/* Metadata: the skb's hash, the tunnel a packet came from, its
	 * conntrack entry
	 */
	struct flow_dissector_key_hash hash;
	struct flow_dissector_key_control enc_control;
	struct flow_dissector_key_keyid enc_keyid;
	union {
		struct flow_dissector_key_ipv4_addrs enc_ipv4;
		struct flow_dissector_key_ipv6_addrs enc_ipv6;
	};
	struct flow_dissector_key_ports enc_tp;
	struct flow_dissector_key_ip enc_ip;
	struct flow_dissector_key_ct ct;
	struct flow_dissector_key_enc_opts enc_opts;	/* 258 bytes: last */
} __aligned(BITS_PER_LONG / 8); /* masked keys are computed long by long */

/* The part of the key that the mask touches, rounded out to longs */
struct fl_flow_mask_range {
	unsigned short int start;
	unsigned short int end;
};

#define FL_KEY_LONGS	(sizeof(struct fl_flow_key) / sizeof(long))

/* One mask of an instance, and the table of its filters keyed by their
 * masked keys.  Ready before a set that holds it is published.
 */
struct fl_flow_mask {
	struct fl_flow_key key;
	struct fl_flow_mask_range range;
	/* The longs of the key the mask is not zero in, ascending: what the
	 * filter table hashes and compares (at least one)
	 */
	u8 words[FL_KEY_LONGS];
	u8 nwords;
	struct rhash_head ht_node;	/* in head->mask_ht */
	u32 used;			/* fl_dissector_keys[] it uses */
	struct rhashtable_params ht_params;
	struct rhashtable ht;		/* masked key -> filter */
	/* With port ranges (tp_range), classify walks the filters in the
	 * order they came (RCU list, changed under head->lock).
	 */
	struct list_head range_filters;
	bool ranges;
	bool range_stale;		/* index to build; head->lock */
	struct fl_range_index __rcu *rindex;	/* NULL: walk */
	unsigned int filters;		/* in ht; under head->lock */
	refcount_t refs;		/* the instance's, one per filter */
	struct rcu_work rwork;
};

/* What classify reads: the instance's masks in the order they came, and
 * one dissector for the union of their keys.  Replaced whole when that
 * union or the order changes.  A mask whose keys the dissector has
 * already is appended in place, if there is room: mask[n] is written,
 * then n (release; classify reads n with acquire), so that a set of M
 * masks is built in O(M) copies of pointers, not O(M^2).
 */
struct fl_masks {
	struct flow_dissector dissector;
	unsigned short int clear_end;	/* key bytes to zero: whole longs */
	bool tunnel;			/* a mask uses a tunnel (enc_*) key */
	bool ct;			/* a mask uses the conntrack key */
	bool ranges;			/* a mask has port ranges */
	bool hash;			/* a mask uses the hash key */
	bool metadata;			/* any of tunnel, ct, hash */
	bool frag_l4;			/* ... a first fragment's L4 keys */
	bool l3l4;			/* fl_dissect_l3l4() may dissect */
	u32 used;			/* fl_dissector_keys[] the masks use */
	unsigned int n;			/* in mask[]; grows under head->lock */
	unsigned int room;		/* of mask[] */
	struct rcu_head rcu;
	struct fl_flow_mask *mask[];
};

/* The flow cache, see the top.  Sized so that one CPU's entries take
 * FL_CACHE_SIZE bytes; only for instances with FL_CACHE_MIN_MASKS masks.
 */
#define FL_CACHE_SIZE		4096
#define FL_CACHE_MIN_MASKS	4
#define FL_CACHE_GEN_INIT	((u32)-300)

struct fl_cache_entry {
	u32 gen;			/* 0: empty */
	u32 hash;			/* of key[] */
	struct cls_fl_filter *f;	/* what the walk found; NULL: none */
	unsigned long key[];		/* cache->span bytes of the key */
};

struct fl_cache {
	u32 gen;			/* head->lock; classify: acquire */
	u32 seed;
	unsigned short int span;	/* key bytes: fl_masks.clear_end */
	unsigned short int stride;	/* bytes of an entry */
	unsigned int slots;		/* entries per CPU - 1 */
	u8 __percpu *entries;
	struct rcu_head rcu;
};

/* The port range index, see the top.  cover[first[i]] to
 * cover[first[i + 1] - 1] are the ranges that hold the ports from
 * start[i] to start[i + 1] - 1, in the walk's order.
 */
#define FL_RANGE_DEPTH		16
#define FL_RANGE_SYNC_MAX	64
#define FL_RANGE_INDEX_DELAY	(HZ / 10)
#define FL_RANGE_BUILD_SHARE	64

struct fl_range_cover {
	__be16 min;
	__be16 max;
};

struct fl_range_index {
	struct rcu_head rcu;
	bool dst;			/* ranged: the dst port, else src */
	unsigned int segs;
	u32 *first;			/* segs + 1 */
	u16 *start;			/* segs, ascending, start[0] == 0 */
	struct fl_range_cover cover[];
};

/* A key seen through a mask: what the filter tables hash (fl_hashfn()) */
struct fl_lookup_key {
	const struct fl_flow_key *key;
	const struct fl_flow_mask *mask;
};

struct cls_fl_head {
	struct mutex lock;		/* for changes; see the top */
	struct fl_masks __rcu *masks;	/* NULL while there is no mask */
	struct fl_cache __rcu *cache;	/* NULL: no flow cache */
	struct rhashtable mask_ht;	/* key -> mask of masks; head->lock */
	/* How many masks of masks use each fl_dissector_keys[]; head->lock */
	unsigned int key_users[32];
	struct idr handle_idr;		/* handle -> filter */
	struct list_head hw_filters;	/* offered to drivers; tp->lock */
	struct delayed_work range_work;	/* builds range indexes */
	u64 range_build_ns;		/* the work's last; head->lock */
	struct rcu_work rwork;
};

struct cls_fl_filter {
	struct rhash_head ht_node;
	struct fl_flow_mask *mask;	/* whose table holds the filter */
	struct fl_lookup_key lkey;	/* { &mkey, mask }: what ht hashes */
	struct fl_flow_key mkey;	/* key & mask */
	struct fl_flow_key key;		/* key as given, for dumps */
	struct list_head range_node;	/* in mask->range_filters */
	struct tcf_exts exts;
	struct tcf_result res;
	u32 handle;
	u32 flags;			/* TCA_CLS_FLAGS_*; IN_HW: tp->lock */
	unsigned int in_hw_count;	/* drivers that took it; tp->lock */
	struct list_head hw_list;	/* in head->hw_filters */
	refcount_t refs;		/* the instance's, fl_get()'s, ... */
	bool deleted;			/* out of the IDR; under head->lock */
	struct rcu_work rwork;
};

/* A chain template: the keys every filter of the chain may use */
struct fl_tmplt {
	struct fl_flow_key key;
	struct fl_flow_key mask;
	struct tcf_chain *chain;
	struct flow_dissector dissector;	/* for drivers */
	struct fl_flow_key hw_mask;		/* for drivers */
};

/* What the filter's protocol and ip_proto must be for a key to apply.  A
 * key whose need is not met is ignored, as flower has always ignored it,
 * and the request is told so with a warning.  The addresses' needs also
 * keep a dump to the family that fills the union they share.
 */
enum fl_need {
	FL_NEED_NONE,
	FL_NEED_IP,
	FL_NEED_IPV4_ADDRS,
	FL_NEED_NO_IPV4_ADDRS,
	FL_NEED_ENC_IPV6_ADDRS,
	FL_NEED_NO_ENC_IPV6_ADDRS,
	FL_NEED_TCP,
	FL_NEED_UDP,
	FL_NEED_SCTP,
	FL_NEED_L4,
	FL_NEED_ICMPV4,
	FL_NEED_ICMPV6,
	FL_NEED_ARP,
	FL_NEED_VLAN,
	FL_NEED_CVLAN,
	FL_NEED_MPLS,
	FL_NEED_PPPOE,
	FL_NEED_L2TP,
};

/* One row per key that is a plain (value, mask) pair of a key member */
struct fl_key_desc {
	u16 type;	/* attribute carrying the value */
	u16 mask_type;	/* attribute carrying its mask, or UNSPEC: exact */
	u16 offset;	/* of the member in struct fl_flow_key */
	u8 len;		/* of the member and of both attributes */
	u8 need;	/* enum fl_need */
};

/* Attribute names are pasted at the outer level: IP_TOS and IP_TTL are
 * also socket option macros, which must not expand here.
 */
#define FL_KEY(_type, _mask_type, _member, _need) {			\
	.type = _type,							\
	.mask_type = _mask_type,					\
	.offset = offsetof(struct fl_flow_key, _member),		\
	.len = sizeof_field(struct fl_flow_key, _member),		\
	.need = FL_NEED_##_need,					\
}

#define FL_KEY_MASKED(_type, _member, _need)				\
	FL_KEY(TCA_FLOWER_KEY_##_type, TCA_FLOWER_KEY_##_type##_MASK,	\
	       _member, _need)
#define FL_KEY_EXACT(_type, _member, _need)				\
	FL_KEY(TCA_FLOWER_KEY_##_type, TCA_FLOWER_UNSPEC, _member, _need)

/* Rows are parsed in this order, after the protocol (eth_type, VLAN and
 * PPPoE keys) and the address family: IP_PROTO comes first because
 * whether a later key applies can depend on it.  The TCP, UDP and SCTP
 * ports share one member; the filter's ip_proto tells which attribute
 * dumps it.
 */
static const struct fl_key_desc fl_keys[] = {
	FL_KEY_EXACT(IP_PROTO, basic.ip_proto, IP),
	FL_KEY_MASKED(ETH_DST, eth.dst, NONE),
	FL_KEY_MASKED(ETH_SRC, eth.src, NONE),
	FL_KEY_EXACT(NUM_OF_VLANS, num_of_vlans, NONE),
	FL_KEY_EXACT(PPPOE_SID, pppoe.session_id, PPPOE),
	FL_KEY_MASKED(IPV4_SRC, ipv4.src, IPV4_ADDRS),
	FL_KEY_MASKED(IPV4_DST, ipv4.dst, IPV4_ADDRS),
	FL_KEY_MASKED(IPV6_SRC, ipv6.src, NO_IPV4_ADDRS),
	FL_KEY_MASKED(IPV6_DST, ipv6.dst, NO_IPV4_ADDRS),
	FL_KEY_MASKED(IP_TOS, ip.tos, IP),
	FL_KEY_MASKED(IP_TTL, ip.ttl, IP),
	FL_KEY_MASKED(TCP_SRC, tp.src, TCP),
	FL_KEY_MASKED(TCP_DST, tp.dst, TCP),
	FL_KEY_MASKED(UDP_SRC, tp.src, UDP),
	FL_KEY_MASKED(UDP_DST, tp.dst, UDP),
	FL_KEY_MASKED(SCTP_SRC, tp.src, SCTP),
	FL_KEY_MASKED(SCTP_DST, tp.dst, SCTP),
	FL_KEY_EXACT(PORT_DST_MIN, tp_range.tp_min.dst, L4),
	FL_KEY_EXACT(PORT_DST_MAX, tp_range.tp_max.dst, L4),
	FL_KEY_EXACT(PORT_SRC_MIN, tp_range.tp_min.src, L4),
	FL_KEY_EXACT(PORT_SRC_MAX, tp_range.tp_max.src, L4),
	FL_KEY_MASKED(TCP_FLAGS, tcp.flags, TCP),
	FL_KEY_MASKED(ICMPV4_TYPE, icmp.type, ICMPV4),
	FL_KEY_MASKED(ICMPV4_CODE, icmp.code, ICMPV4),
	FL_KEY_MASKED(ICMPV6_TYPE, icmp.type, ICMPV6),
	FL_KEY_MASKED(ICMPV6_CODE, icmp.code, ICMPV6),
	FL_KEY_MASKED(ARP_OP, arp.op, ARP),
	FL_KEY_MASKED(ARP_SIP, arp.sip, ARP),
	FL_KEY_MASKED(ARP_TIP, arp.tip, ARP),
	FL_KEY_MASKED(ARP_SHA, arp.sha, ARP),
	FL_KEY_MASKED(ARP_THA, arp.tha, ARP),
	FL_KEY_EXACT(L2TPV3_SID, l2tpv3.session_id, L2TP),
	FL_KEY_MASKED(HASH, hash.hash, NONE),
	FL_KEY_EXACT(ENC_KEY_ID, enc_keyid.keyid, NONE),
	FL_KEY_MASKED(ENC_IPV4_SRC, enc_ipv4.src, NO_ENC_IPV6_ADDRS),
	FL_KEY_MASKED(ENC_IPV4_DST, enc_ipv4.dst, NO_ENC_IPV6_ADDRS),
	FL_KEY_MASKED(ENC_IPV6_SRC, enc_ipv6.src, ENC_IPV6_ADDRS),
	FL_KEY_MASKED(ENC_IPV6_DST, enc_ipv6.dst, ENC_IPV6_ADDRS),
	FL_KEY_MASKED(ENC_UDP_SRC_PORT, enc_tp.src, NONE),
	FL_KEY_MASKED(ENC_UDP_DST_PORT, enc_tp.dst, NONE),
	FL_KEY_MASKED(ENC_IP_TOS, enc_ip.tos, NONE),
	FL_KEY_MASKED(ENC_IP_TTL, enc_ip.ttl, NONE),
	FL_KEY_MASKED(CT_STATE, ct.ct_state, NONE),
	FL_KEY_MASKED(CT_ZONE, ct.ct_zone, NONE),
	FL_KEY_MASKED(CT_MARK, ct.ct_mark, NONE),
	FL_KEY_MASKED(CT_LABELS, ct.ct_labels, NONE),
};

#define FL_MIN_LEN(_member)						\
	NLA_POLICY_MIN_LEN(sizeof_field(struct fl_flow_key, _member))
#define FL_MAX_LEN(_member)						\
	{ .type = NLA_BINARY, .len = sizeof_field(struct fl_flow_key, _member) }

/* Types and lengths of the attributes, parsed as flower has always parsed
 * them (liberally): an attribute may be longer than its type and types
 * above TCA_FLOWER_MAX are ignored.  fl_parse_opts() warns of each.
 * Strictness is for attributes this uAPI does not have yet.
 */
static const struct nla_policy fl_policy[TCA_FLOWER_MAX + 1] = {
	[TCA_FLOWER_CLASSID]		= { .type = NLA_U32 },
	[TCA_FLOWER_INDEV]		= { .type = NLA_STRING,
					    .len = IFNAMSIZ },
	[TCA_FLOWER_ACT]		= { .type = NLA_NESTED },
	[TCA_FLOWER_FLAGS]		= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_ETH_TYPE]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_ETH_DST]	= FL_MIN_LEN(eth.dst),
	[TCA_FLOWER_KEY_ETH_DST_MASK]	= FL_MIN_LEN(eth.dst),
	[TCA_FLOWER_KEY_ETH_SRC]	= FL_MIN_LEN(eth.src),
	[TCA_FLOWER_KEY_ETH_SRC_MASK]	= FL_MIN_LEN(eth.src),
	[TCA_FLOWER_KEY_VLAN_ID]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_VLAN_PRIO]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_VLAN_ETH_TYPE]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_CVLAN_ID]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_CVLAN_PRIO]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_CVLAN_ETH_TYPE]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_NUM_OF_VLANS]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_PPPOE_SID]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_PPP_PROTO]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_IP_PROTO]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_FLAGS]		= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_FLAGS_MASK]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_IPV4_SRC]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_IPV4_SRC_MASK]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_IPV4_DST]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_IPV4_DST_MASK]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_IPV6_SRC]	= FL_MIN_LEN(ipv6.src),
	[TCA_FLOWER_KEY_IPV6_SRC_MASK]	= FL_MIN_LEN(ipv6.src),
	[TCA_FLOWER_KEY_IPV6_DST]	= FL_MIN_LEN(ipv6.dst),
	[TCA_FLOWER_KEY_IPV6_DST_MASK]	= FL_MIN_LEN(ipv6.dst),
	[TCA_FLOWER_KEY_IP_TOS]		= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_IP_TOS_MASK]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_IP_TTL]		= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_IP_TTL_MASK]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_TCP_SRC]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_TCP_SRC_MASK]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_TCP_DST]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_TCP_DST_MASK]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_UDP_SRC]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_UDP_SRC_MASK]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_UDP_DST]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_UDP_DST_MASK]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_SCTP_SRC]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_SCTP_SRC_MASK]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_SCTP_DST]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_SCTP_DST_MASK]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_PORT_SRC_MIN]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_PORT_SRC_MAX]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_PORT_DST_MIN]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_PORT_DST_MAX]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_TCP_FLAGS]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_TCP_FLAGS_MASK]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_ICMPV4_TYPE]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ICMPV4_TYPE_MASK] = { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ICMPV4_CODE]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ICMPV4_CODE_MASK] = { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ICMPV6_TYPE]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ICMPV6_TYPE_MASK] = { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ICMPV6_CODE]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ICMPV6_CODE_MASK] = { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ARP_OP]		= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ARP_OP_MASK]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ARP_SIP]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_ARP_SIP_MASK]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_ARP_TIP]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_ARP_TIP_MASK]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_ARP_SHA]	= FL_MIN_LEN(arp.sha),
	[TCA_FLOWER_KEY_ARP_SHA_MASK]	= FL_MIN_LEN(arp.sha),
	[TCA_FLOWER_KEY_ARP_THA]	= FL_MIN_LEN(arp.tha),
	[TCA_FLOWER_KEY_ARP_THA_MASK]	= FL_MIN_LEN(arp.tha),
	[TCA_FLOWER_KEY_MPLS_TTL]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_MPLS_BOS]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_MPLS_TC]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_MPLS_LABEL]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_MPLS_OPTS]	= { .type = NLA_NESTED },
	[TCA_FLOWER_KEY_L2TPV3_SID]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_HASH]		= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_HASH_MASK]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_ENC_KEY_ID]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_ENC_IPV4_SRC]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_ENC_IPV4_SRC_MASK] = { .type = NLA_U32 },
	[TCA_FLOWER_KEY_ENC_IPV4_DST]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_ENC_IPV4_DST_MASK] = { .type = NLA_U32 },
	[TCA_FLOWER_KEY_ENC_IPV6_SRC]	= FL_MIN_LEN(enc_ipv6.src),
	[TCA_FLOWER_KEY_ENC_IPV6_SRC_MASK] = FL_MIN_LEN(enc_ipv6.src),
	[TCA_FLOWER_KEY_ENC_IPV6_DST]	= FL_MIN_LEN(enc_ipv6.dst),
	[TCA_FLOWER_KEY_ENC_IPV6_DST_MASK] = FL_MIN_LEN(enc_ipv6.dst),
	[TCA_FLOWER_KEY_ENC_UDP_SRC_PORT] = { .type = NLA_U16 },
	[TCA_FLOWER_KEY_ENC_UDP_SRC_PORT_MASK] = { .type = NLA_U16 },
	[TCA_FLOWER_KEY_ENC_UDP_DST_PORT] = { .type = NLA_U16 },
	[TCA_FLOWER_KEY_ENC_UDP_DST_PORT_MASK] = { .type = NLA_U16 },
	[TCA_FLOWER_KEY_ENC_IP_TOS]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ENC_IP_TOS_MASK] = { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ENC_IP_TTL]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ENC_IP_TTL_MASK] = { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ENC_OPTS]	= { .type = NLA_NESTED },
	[TCA_FLOWER_KEY_ENC_OPTS_MASK]	= { .type = NLA_NESTED },
	[TCA_FLOWER_KEY_CT_STATE]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_CT_STATE_MASK]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_CT_ZONE]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_CT_ZONE_MASK]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_CT_MARK]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_CT_MARK_MASK]	= { .type = NLA_U32 },
	/* tc sends as many label bytes as were typed: the rest are zero */
	[TCA_FLOWER_KEY_CT_LABELS]	= FL_MAX_LEN(ct.ct_labels),
	[TCA_FLOWER_KEY_CT_LABELS_MASK]	= FL_MAX_LEN(ct.ct_labels),
};

static const struct nla_policy
fl_mpls_lse_policy[TCA_FLOWER_KEY_MPLS_OPT_LSE_MAX + 1] = {
	[TCA_FLOWER_KEY_MPLS_OPT_LSE_DEPTH]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_MPLS_OPT_LSE_TTL]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_MPLS_OPT_LSE_BOS]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_MPLS_OPT_LSE_TC]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_MPLS_OPT_LSE_LABEL]	= { .type = NLA_U32 },
};

/* A Geneve option's data is counted in 4-byte words, in 5 bits */
#define FL_GENEVE_DATA_MAX	(31 * 4)

static const struct nla_policy
fl_geneve_opt_policy[TCA_FLOWER_KEY_ENC_OPT_GENEVE_MAX + 1] = {
	[TCA_FLOWER_KEY_ENC_OPT_GENEVE_CLASS]	= { .type = NLA_U16 },
	[TCA_FLOWER_KEY_ENC_OPT_GENEVE_TYPE]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ENC_OPT_GENEVE_DATA]	= { .type = NLA_BINARY,
						    .len = 128 },
};

static const struct nla_policy
fl_vxlan_opt_policy[TCA_FLOWER_KEY_ENC_OPT_VXLAN_MAX + 1] = {
	[TCA_FLOWER_KEY_ENC_OPT_VXLAN_GBP]	= { .type = NLA_U32 },
};

static const struct nla_policy
fl_erspan_opt_policy[TCA_FLOWER_KEY_ENC_OPT_ERSPAN_MAX + 1] = {
	[TCA_FLOWER_KEY_ENC_OPT_ERSPAN_VER]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ENC_OPT_ERSPAN_INDEX]	= { .type = NLA_U32 },
	[TCA_FLOWER_KEY_ENC_OPT_ERSPAN_DIR]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ENC_OPT_ERSPAN_HWID]	= { .type = NLA_U8 },
};

static const struct nla_policy
fl_gtp_opt_policy[TCA_FLOWER_KEY_ENC_OPT_GTP_MAX + 1] = {
	[TCA_FLOWER_KEY_ENC_OPT_GTP_PDU_TYPE]	= { .type = NLA_U8 },
	[TCA_FLOWER_KEY_ENC_OPT_GTP_QFI]	= { .type = NLA_U8 },
};

#define FL_NLA_VALIDATE	(NL_VALIDATE_STRICT & ~NL_VALIDATE_NESTED)

/* Dissector keys, each switched on only when the mask looks at it.
 * @l3l4: fl_dissect_l3l4() writes the key as the dissector would, or the
 * dissector never writes it (metadata, dissected apart): an instance whose
 * keys all have it may skip the dissector.
 */
struct fl_dissector_key {
	enum flow_dissector_key_id id;
	u16 offset;
	u16 len;
	bool l3l4;
};

#define FL_DISSECTOR_KEY(_id, _member, _l3l4) {				\
	.id = FLOW_DISSECTOR_KEY_##_id,					\
	.offset = offsetof(struct fl_flow_key, _member),		\
	.len = sizeof_field(struct fl_flow_key, _member),		\
	.l3l4 = _l3l4,							\
}

static const struct fl_dissector_key fl_dissector_keys[] = {
	FL_DISSECTOR_KEY(CONTROL, control, true),
	FL_DISSECTOR_KEY(BASIC, basic, true),
	FL_DISSECTOR_KEY(ETH_ADDRS, eth, true),
	FL_DISSECTOR_KEY(VLAN, vlan, false),
	FL_DISSECTOR_KEY(IPV4_ADDRS, ipv4, true),
	FL_DISSECTOR_KEY(IPV6_ADDRS, ipv6, true),
	FL_DISSECTOR_KEY(PORTS, tp, true),
	FL_DISSECTOR_KEY(PORTS_RANGE, tp_range, true),
	FL_DISSECTOR_KEY(ICMP, icmp, false),
	FL_DISSECTOR_KEY(ARP, arp, false),
	FL_DISSECTOR_KEY(IP, ip, true),
	FL_DISSECTOR_KEY(TCP, tcp, false),
	FL_DISSECTOR_KEY(CVLAN, cvlan, false),
	FL_DISSECTOR_KEY(NUM_OF_VLANS, num_of_vlans, false),
	FL_DISSECTOR_KEY(PPPOE, pppoe, false),
	FL_DISSECTOR_KEY(L2TPV3, l2tpv3, false),
	FL_DISSECTOR_KEY(MPLS, mpls, false),
	FL_DISSECTOR_KEY(HASH, hash, true),
	FL_DISSECTOR_KEY(ENC_CONTROL, enc_control, true),
	FL_DISSECTOR_KEY(ENC_KEYID, enc_keyid, true),
	FL_DISSECTOR_KEY(ENC_IPV4_ADDRS, enc_ipv4, true),
	FL_DISSECTOR_KEY(ENC_IPV6_ADDRS, enc_ipv6, true),
	FL_DISSECTOR_KEY(ENC_PORTS, enc_tp, true),
	FL_DISSECTOR_KEY(ENC_IP, enc_ip, true),
	FL_DISSECTOR_KEY(CT, ct, true),
	FL_DISSECTOR_KEY(ENC_OPTS, enc_opts, true),
};

/* A warning on a request that succeeds (tc prints it as "Warning:").
 * Netlink carries one message: the first warning stays, and an error set
 * later replaces it.  A macro, as NL_SET_ERR_MSG() is: msg is a literal.
 */
#define fl_warn(extack, msg) do {				\
	struct netlink_ext_ack *__fl_ext = (extack);		\
								\
	if (!__fl_ext || !__fl_ext->_msg)			\
		NL_SET_ERR_MSG(__fl_ext, msg);			\
} while (0)

/* The warning for a key ignored because its need is not met */
static void fl_warn_need(struct netlink_ext_ack *extack, enum fl_need need)
{
	switch (need) {
	case FL_NEED_IP:
		fl_warn(extack, "Key ignored: it requires protocol ip or ipv6");
		break;
	case FL_NEED_IPV4_ADDRS:
		fl_warn(extack,
			"Key ignored: it is not of the filter's address family");
		break;
	case FL_NEED_NO_IPV4_ADDRS:
		fl_warn(extack,
			"Key ignored: IPv6 addresses do not count beside IPv4 ones");
		break;
	case FL_NEED_ENC_IPV6_ADDRS:
		fl_warn(extack,
			"Key ignored: it is not of the filter's tunnel address family");
		break;
	case FL_NEED_NO_ENC_IPV6_ADDRS:
		fl_warn(extack,
			"Key ignored: IPv4 tunnel addresses do not count beside IPv6 ones");
		break;
	case FL_NEED_TCP:
		fl_warn(extack, "Key ignored: it requires ip_proto tcp");
		break;
	case FL_NEED_UDP:
		fl_warn(extack, "Key ignored: it requires ip_proto udp");
		break;
	case FL_NEED_SCTP:
		fl_warn(extack, "Key ignored: it requires ip_proto sctp");
		break;
	case FL_NEED_L4:
		fl_warn(extack,
			"Key ignored: it requires ip_proto tcp, udp or sctp");
		break;
	case FL_NEED_ICMPV4:
		fl_warn(extack,
			"Key ignored: it requires protocol ip and ip_proto icmp");
		break;
	case FL_NEED_ICMPV6:
		fl_warn(extack,
			"Key ignored: it requires protocol ipv6 and ip_proto icmpv6");
		break;
	case FL_NEED_ARP:
		fl_warn(extack,
			"Key ignored: it requires protocol arp or rarp");
		break;
	case FL_NEED_VLAN:
		fl_warn(extack,
			"Key ignored: it requires protocol 802.1q or 802.1ad");
		break;
	case FL_NEED_CVLAN:
		fl_warn(extack,
			"Key ignored: it requires vlan_ethtype 802.1q or 802.1ad");
		break;
	case FL_NEED_MPLS:
		fl_warn(extack,
			"Key ignored: it requires protocol mpls_uc or mpls_mc");
		break;
	case FL_NEED_PPPOE:
		fl_warn(extack, "Key ignored: it requires protocol ppp_ses");
		break;
	case FL_NEED_L2TP:
		fl_warn(extack, "Key ignored: it requires ip_proto l2tp");
		break;
	case FL_NEED_NONE:
		break;
	}
}

/* tp->root is set by fl_init() and freed after fl_destroy(); every
 * caller holds a reference to tp, so it cannot change under them.
 */
static struct cls_fl_head *fl_head(const struct tcf_proto *tp)
{
	return rcu_dereference_raw(tp->root);
}

static unsigned short int fl_mask_range(const struct fl_flow_mask *mask)
{
	return mask->range.end - mask->range.start;
}

static void *fl_key_start(const struct fl_flow_key *key,
			  const struct fl_flow_mask *mask)
{
	return (u8 *)key + mask->range.start;
}

static void fl_set_masked_key(struct fl_flow_key *mkey,
			      const struct fl_flow_key *key,
			      const struct fl_flow_mask *mask)
{
	const long *lkey = fl_key_start(key, mask);
	const long *lmask = fl_key_start(&mask->key, mask);
	long *lmkey = fl_key_start(mkey, mask);
	int i;

	for (i = 0; i < fl_mask_range(mask); i += sizeof(long))
		*lmkey++ = *lkey++ & *lmask++;
}

/* The filter tables hash and compare masked keys long by long, and only
 * the longs the mask is not zero in (mask->words): a filter on the IPv4
 * destination and the protocol reads two longs, not the six its range
 * spans.  jhash2, the rhashtable default, costs about twice as many
 * instructions per byte and an indirect call.  Keys come from
 * CAP_NET_ADMIN, not from packets, and each table has its own random
 * seed; the last step spreads every input bit into the low bits the
 * table takes for the bucket index.
 *
 * What a table hashes is a key seen through a mask: a packet's key is
 * shared by every mask of the instance, so it is not masked in place;
 * the hash and the compare mask each long as they read it.  A filter
 * carries the same pair for its own (already masked) key, so that one
 * pair of functions serves inserts, resizes and lookups alike.
 */
static u32 fl_hashfn(const void *data, u32 len, u32 seed)
{
	const struct fl_lookup_key *lk = data;
	const unsigned long *k = (const unsigned long *)lk->key;
	const unsigned long *m = (const unsigned long *)&lk->mask->key;
	const u8 *w = lk->mask->words, *end = w + lk->mask->nwords;
	u64 h = seed;

	/* A mask has at least one word (fl_mask_update_range()) */
	do {
		h = (rol64(h, 5) ^ (k[*w] & m[*w])) * GOLDEN_RATIO_64;
	} while (++w < end);
	h ^= h >> 29;
	return (h * GOLDEN_RATIO_64) >> 32;
}

static int fl_cmpfn(struct rhashtable_compare_arg *arg, const void *obj)
{
	const struct fl_lookup_key *lk = arg->key;
	const struct cls_fl_filter *f = obj;
	const unsigned long *k = (const unsigned long *)lk->key;
	const unsigned long *m = (const unsigned long *)&lk->mask->key;
	const unsigned long *b = (const unsigned long *)&f->mkey;
	const u8 *w = lk->mask->words, *end = w + lk->mask->nwords;
	unsigned long diff = 0;

	do {
		diff |= (k[*w] & m[*w]) ^ b[*w];
	} while (++w < end);
	return diff != 0;
}

/* Lookups take neither the key's offset nor its length from the
 * parameters (key_len 0 makes rhashtable take the length from the
 * table), so one constant set serves every mask and the compiler can
 * inline the functions.  Each mask's table has its own copy of
 * fl_table_params with the length of its range (fl_mask_init()).
 */
static const struct rhashtable_params fl_lookup_params = {
	.head_offset = offsetof(struct cls_fl_filter, ht_node),
	.hashfn = fl_hashfn,
	.obj_cmpfn = fl_cmpfn,
};

static const struct rhashtable_params fl_table_params = {
	.head_offset = offsetof(struct cls_fl_filter, ht_node),
	.key_offset = offsetof(struct cls_fl_filter, lkey),
	.hashfn = fl_hashfn,
	.obj_cmpfn = fl_cmpfn,
	.automatic_shrinking = true,
};

/* The instance's masks by their key, to find the one a new filter shares */
static const struct rhashtable_params fl_mask_ht_params = {
	.key_offset = offsetof(struct fl_flow_mask, key),
	.key_len = sizeof_field(struct fl_flow_mask, key),
	.head_offset = offsetof(struct fl_flow_mask, ht_node),
	.automatic_shrinking = true,
};

/* ct_state as the flower uAPI spells a conntrack entry's state */
static u16 fl_ct_states[] = {
	[IP_CT_ESTABLISHED]	  = TCA_FLOWER_KEY_CT_FLAGS_TRACKED |
				    TCA_FLOWER_KEY_CT_FLAGS_ESTABLISHED,
	[IP_CT_RELATED]		  = TCA_FLOWER_KEY_CT_FLAGS_TRACKED |
				    TCA_FLOWER_KEY_CT_FLAGS_RELATED,
	[IP_CT_NEW]		  = TCA_FLOWER_KEY_CT_FLAGS_TRACKED |
				    TCA_FLOWER_KEY_CT_FLAGS_NEW,
	[IP_CT_ESTABLISHED_REPLY] = TCA_FLOWER_KEY_CT_FLAGS_TRACKED |
				    TCA_FLOWER_KEY_CT_FLAGS_ESTABLISHED |
				    TCA_FLOWER_KEY_CT_FLAGS_REPLY,
	[IP_CT_RELATED_REPLY]	  = TCA_FLOWER_KEY_CT_FLAGS_TRACKED |
				    TCA_FLOWER_KEY_CT_FLAGS_RELATED |
				    TCA_FLOWER_KEY_CT_FLAGS_REPLY,
};

/* The conntrack entry act_ct attached earlier in this tc pass, if any;
 * a packet act_ct saw but could not track is +trk+inv in act_ct's zone.
 */
static void fl_dissect_ct(const struct sk_buff *skb, struct fl_masks *masks,
			  struct fl_flow_key *key)
{
	const struct tc_skb_cb *cb = tc_skb_cb(skb);

	skb_flow_dissect_ct(skb, &masks->dissector, key, fl_ct_states,
			    ARRAY_SIZE(fl_ct_states), cb->post_ct, cb->zone);
}

/* What the L4 header of a first fragment gives: fl_dissect_first_frag() */
struct fl_frag_key {
	struct flow_dissector_key_control control;
	struct flow_dissector_key_basic basic;
	struct flow_dissector_key_icmp icmp;
	struct flow_dissector_key_tcp tcp;
	struct flow_dissector_key_l2tpv3 l2tpv3;
};

#define FL_FRAG_KEY(_id, _member) {					\
	.key_id = FLOW_DISSECTOR_KEY_##_id,				\
	.offset = offsetof(struct fl_frag_key, _member),		\
}

static const struct flow_dissector_key fl_frag_keys[] = {
	FL_FRAG_KEY(CONTROL, control),
	FL_FRAG_KEY(BASIC, basic),
	FL_FRAG_KEY(ICMP, icmp),
	FL_FRAG_KEY(TCP, tcp),
	FL_FRAG_KEY(L2TPV3, l2tpv3),
};

static struct flow_dissector fl_frag_dissector __ro_after_init;

/* A first fragment carries the L4 header, and its ICMP type and code, TCP
 * flags and L2TPv3 session are keys (Open vSwitch offloads
 * "frag=first,icmp(type=8)" flows).  A second pass reads them, parsing
 * the first fragment (ports stay unread in any fragment, as the dissector
 * has it), and gives them only when it found the first pass's protocols:
 * past the fragment header it may also find another ip_proto (IPv6
 * extension headers) or n_proto (MPLS in IP), which the first pass does
 * not see, nor any later fragment.
 */
static noinline void fl_dissect_first_frag(struct sk_buff *skb,
					   struct fl_flow_key *key)
{
	struct fl_frag_key fk = {};

	skb_flow_dissect(skb, &fl_frag_dissector, &fk,
			 FLOW_DISSECTOR_F_STOP_BEFORE_ENCAP |
			 FLOW_DISSECTOR_F_PARSE_1ST_FRAG);
	if (fk.basic.n_proto != key->basic.n_proto ||
	    fk.basic.ip_proto != key->basic.ip_proto)
		return;
	key->icmp = fk.icmp;
	key->tcp = fk.tcp;
	key->l2tpv3 = fk.l2tpv3;
}

/* An L4 protocol after which the dissector reads another header, or
 * stops in front of one (fl_dissect() stops before an encapsulation)
 */
static bool fl_ip_proto_nests(u8 ip_proto, bool ipv6)
{
	switch (ip_proto) {
	case IPPROTO_GRE:
	case IPPROTO_IPIP:
	case IPPROTO_IPV6:
	case IPPROTO_MPLS:
		return true;
	case NEXTHDR_HOP:
	case NEXTHDR_ROUTING:
	case NEXTHDR_DEST:
	case NEXTHDR_FRAGMENT:
		return ipv6;
	}
	return false;
}

/* The IPv4 header's keys: false, with nothing written, for a header the
 * dissector finds bad or one it reads past
 */
static bool fl_dissect_ipv4(const struct sk_buff *skb,
			    const struct flow_dissector *d,
			    struct fl_flow_key *key, int *nhoff, u8 *ip_proto)
{
	const struct iphdr *iph;
	struct iphdr _iph __uninitialized;

	iph = skb_header_pointer(skb, *nhoff, sizeof(_iph), &_iph);
	if (!iph || iph->ihl < 5 || fl_ip_proto_nests(iph->protocol, false))
		return false;
	*nhoff += iph->ihl * 4;
	*ip_proto = iph->protocol;
	if (dissector_uses_key(d, FLOW_DISSECTOR_KEY_IPV4_ADDRS)) {
		key->ipv4.src = iph->saddr;
		key->ipv4.dst = iph->daddr;
		key->control.addr_type = FLOW_DISSECTOR_KEY_IPV4_ADDRS;
	}
	if (dissector_uses_key(d, FLOW_DISSECTOR_KEY_IP)) {
		key->ip.tos = iph->tos;
		key->ip.ttl = iph->ttl;
	}
	/* A fragment has no L4 keys (no FLOW_DISSECTOR_F_PARSE_1ST_FRAG) */
	if (ip_is_fragment(iph)) {
		key->control.flags |= FLOW_DIS_IS_FRAGMENT;
		if (!(iph->frag_off & htons(IP_OFFSET)))
			key->control.flags |= FLOW_DIS_FIRST_FRAG;
	}
	return true;
}

static bool fl_dissect_ipv6(const struct sk_buff *skb,
			    const struct flow_dissector *d,
			    struct fl_flow_key *key, int *nhoff, u8 *ip_proto)
{
	const struct ipv6hdr *iph;
	struct ipv6hdr _iph __uninitialized;

	iph = skb_header_pointer(skb, *nhoff, sizeof(_iph), &_iph);
	if (!iph || fl_ip_proto_nests(iph->nexthdr, true))
		return false;
	*nhoff += sizeof(*iph);
	*ip_proto = iph->nexthdr;
	if (dissector_uses_key(d, FLOW_DISSECTOR_KEY_IPV6_ADDRS)) {
		key->ipv6.src = iph->saddr;
		key->ipv6.dst = iph->daddr;
		key->control.addr_type = FLOW_DISSECTOR_KEY_IPV6_ADDRS;
	}
	if (dissector_uses_key(d, FLOW_DISSECTOR_KEY_IP)) {
		key->ip.tos = ipv6_get_dsfield(iph);
		key->ip.ttl = iph->hop_limit;
	}
	return true;
}

/* Whether a BPF flow dissector is attached where __skb_flow_dissect()
 * would run it in place of its own parsing
 */
static bool fl_bpf_dissector(const struct net_device *dev)
{
	enum netns_bpf_attach_type type = NETNS_BPF_FLOW_DISSECTOR;

	return rcu_access_pointer(init_net.bpf.run_array[type]) ||
	       rcu_access_pointer(dev_net(dev)->bpf.run_array[type]);
}

/* The instance's keys of an untagged IPv4 or IPv6 packet, as
 * __skb_flow_dissect() would write them for masks->dissector, without
 * its walk over every protocol and key (masks->l3l4: every key of the
 * instance is one this writes or one the dissector never writes).  False,
 * with nothing written, for any packet the dissector would take further
 * or treat otherwise: a VLAN tag, another ethertype, a header it finds
 * bad, an IPv6 extension header, an encapsulation, a BPF flow dissector.
 * The key is cleared, so a key the packet lacks stays zero, as there.
 */
static __flatten bool fl_dissect_l3l4(const struct sk_buff *skb,
				      const struct fl_masks *masks,
				      struct fl_flow_key *key)
{
	const struct flow_dissector *d = &masks->dissector;
	int nhoff = skb_network_offset(skb);
	u8 ip_proto = 0;
	__be32 ports;

	if (skb_vlan_tag_present(skb) || !skb->dev ||
	    fl_bpf_dissector(skb->dev))
		return false;
	if (skb->protocol == htons(ETH_P_IP)) {
		if (!fl_dissect_ipv4(skb, d, key, &nhoff, &ip_proto))
			return false;
	} else if (skb->protocol == htons(ETH_P_IPV6)) {
		if (!fl_dissect_ipv6(skb, d, key, &nhoff, &ip_proto))
			return false;
	} else {
		return false;
	}
	if (dissector_uses_key(d, FLOW_DISSECTOR_KEY_ETH_ADDRS) &&
	    skb->dev->type == ARPHRD_ETHER && skb_mac_header_was_set(skb))
		memcpy(&key->eth, eth_hdr(skb), sizeof(key->eth));
	if (!(key->control.flags & FLOW_DIS_IS_FRAGMENT) &&
	    (dissector_uses_key(d, FLOW_DISSECTOR_KEY_PORTS) ||
	     dissector_uses_key(d, FLOW_DISSECTOR_KEY_PORTS_RANGE))) {
		ports = __skb_flow_get_ports(skb, nhoff, ip_proto, NULL, 0);
		if (dissector_uses_key(d, FLOW_DISSECTOR_KEY_PORTS))
			key->tp.ports = ports;
		if (dissector_uses_key(d, FLOW_DISSECTOR_KEY_PORTS_RANGE))
			key->tp_range.tp.ports = ports;
	}
	/* nhoff is at most the network offset and 60: no U16_MAX clamp */
	key->control.thoff = min_t(u32, nhoff, skb->len);
	key->basic.n_proto = skb->protocol;
	key->basic.ip_proto = ip_proto;
	return true;
}

/* The keys of every mask of the instance, from one pass over the packet */
static void fl_dissect(struct sk_buff *skb, struct fl_masks *masks,
		       struct fl_flow_key *key)
{
	/* The dissector ORs into control.flags and writes only the keys it
	 * finds in the packet: every key it may write, and everything a
	 * mask reads, starts out zero.  Long by long: a memset() of a
	 * variable length is a byte-wise "rep stosb" on x86.
	 */
	memset_l((unsigned long *)key, 0, masks->clear_end / sizeof(long));
	key->meta.ingress_ifindex = skb->skb_iif;
	/* Metadata keys: not even a call when no mask uses them */
	if (unlikely(masks->metadata)) {
		if (masks->tunnel)
			skb_flow_dissect_tunnel_info(skb, &masks->dissector,
						     key);
		if (masks->ct)
			fl_dissect_ct(skb, masks, key);
		if (masks->hash)
			skb_flow_dissect_hash(skb, &masks->dissector, key);
	}
	/* Keys are the outer headers': do not descend into a tunnel */
	if (!masks->l3l4 || !fl_dissect_l3l4(skb, masks, key))
		skb_flow_dissect(skb, &masks->dissector, key,
				 FLOW_DISSECTOR_F_STOP_BEFORE_ENCAP);
	if (unlikely(masks->frag_l4) &&
	    (key->control.flags & FLOW_DIS_FIRST_FRAG))
		fl_dissect_first_frag(skb, key);
}

/* The filter of @mask whose masked key is @lk's.  The only caller of
 * rhashtable_lookup_fast() on filter tables, flattened: the lookup, and
 * with it fl_hashfn() and fl_cmpfn(), are inlined here.  Without it the
 * compiler made one out-of-line copy of the lookup for all its callers,
 * which called the two through pointers for every packet.
 */
static __flatten struct cls_fl_filter *
fl_mask_lookup(struct fl_flow_mask *mask, const struct fl_lookup_key *lk)
{
	return rhashtable_lookup_fast(&mask->ht, lk, fl_lookup_params);
}

static bool fl_port_in_range(__be16 port, __be16 min, __be16 max)
{
	return ntohs(port) >= ntohs(min) && ntohs(port) <= ntohs(max);
}

/* The index's segment of @port: the last whose start is not above it */
static unsigned int fl_range_segment(const struct fl_range_index *idx,
				     u16 port)
{
	unsigned int lo = 0, hi = idx->segs - 1, mid;

	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (idx->start[mid] <= port)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The walk below, with the ranges that hold the packet's port taken from
 * @idx instead of from every filter (see the top)
 */
static struct cls_fl_filter *
fl_lookup_range_index(const struct fl_range_index *idx,
		      struct fl_flow_mask *mask, struct fl_lookup_key *lk,
		      struct fl_flow_key *key,
		      struct flow_dissector_key_ports ports)
{
	struct flow_dissector_key_ports_range *k = &key->tp_range;
	const struct fl_range_cover *c, *end;
	struct cls_fl_filter *f;
	unsigned int seg;

	seg = fl_range_segment(idx, ntohs(idx->dst ? ports.dst : ports.src));
	end = &idx->cover[idx->first[seg + 1]];
	for (c = &idx->cover[idx->first[seg]]; c < end; c++) {
		if (idx->dst) {
			k->tp_min.dst = c->min;
			k->tp_max.dst = c->max;
		} else {
			k->tp_min.src = c->min;
			k->tp_max.src = c->max;
		}
		f = fl_mask_lookup(mask, lk);
		if (f)
			return f;
	}
	return NULL;
}

/* A mask with port ranges, looked up as flower always has: its filters
 * in the order they came, each whose ranges hold the packet's @ports
 * tried with its own ranges in the key; the first filter found wins (one
 * of the range's filters whose other keys match the packet).  The
 * dissector wrote @ports where the range's minimum goes in the key.
 */
static struct cls_fl_filter *
fl_lookup_range(struct fl_flow_mask *mask, struct fl_lookup_key *lk,
		struct fl_flow_key *key, struct flow_dissector_key_ports ports)
{
	const struct flow_dissector_key_ports_range *m = &mask->key.tp_range;
	const struct flow_dissector_key_ports_range *k;
	const struct fl_range_index *idx = rcu_dereference_bh(mask->rindex);
	struct cls_fl_filter *r, *f;

	if (idx)
		return fl_lookup_range_index(idx, mask, lk, key, ports);
	list_for_each_entry_rcu(r, &mask->range_filters, range_node) {
		k = &r->mkey.tp_range;
		if (m->tp_min.dst &&
		    !fl_port_in_range(ports.dst, k->tp_min.dst, k->tp_max.dst))
			continue;
		if (m->tp_min.src &&
		    !fl_port_in_range(ports.src, k->tp_min.src, k->tp_max.src))
			continue;
		key->tp_range.tp_min = k->tp_min;
		key->tp_range.tp_max = k->tp_max;
		f = fl_mask_lookup(mask, lk);
		if (f)
			return f;
	}
	return NULL;
}

/* The walk: the first filter of the oldest mask that matches @key, but
 * for skip_sw filters, which are for hardware (the next mask may match).
 * Inline: an instance without a cache pays no call for it.
 */
static __always_inline struct cls_fl_filter *
fl_lookup(struct fl_masks *masks, struct fl_flow_key *key)
{
	struct fl_lookup_key lk = { .key = key };
	struct flow_dissector_key_ports ports = {};
	struct cls_fl_filter *f;
	unsigned int i, n;

	if (unlikely(masks->ranges))
		ports = key->tp_range.tp;	/* range lookups write there */
	/* Pairs with fl_masks_append(): mask[i] is ready for each i < n */
	n = smp_load_acquire(&masks->n);
	for (i = 0; i < n; i++) {
		struct fl_flow_mask *mask = masks->mask[i];

		lk.mask = mask;
		if (unlikely(mask->ranges))
			f = fl_lookup_range(mask, &lk, key, ports);
		else
			f = fl_mask_lookup(mask, &lk);
		if (f && !tc_skip_sw(f->flags))
			return f;
	}
	return NULL;
}

/* The cache's hash of a packet's key, as fl_hashfn() but unmasked */
static u32 fl_cache_hash(const struct fl_cache *cache,
			 const unsigned long *k)
{
	const unsigned long *end = (const void *)k + cache->span;
	u64 h = cache->seed;

	do
		h = (rol64(h, 5) ^ *k) * GOLDEN_RATIO_64;
	while (++k < end);
	h ^= h >> 29;
	return (h * GOLDEN_RATIO_64) >> 32;
}

static bool fl_cache_key_eq(const struct fl_cache *cache,
			    const unsigned long *a, const unsigned long *b)
{
	const unsigned long *end = (const void *)a + cache->span;
	unsigned long diff = 0;

	do
		diff |= *a ^ *b++;
	while (++a < end);
	return !diff;
}

static void fl_cache_key_copy(const struct fl_cache *cache, unsigned long *to,
			      const unsigned long *from)
{
	const unsigned long *end = (const void *)from + cache->span;

	while (from < end)
		*to++ = *from++;
}

/* This CPU's entry for @key, with BH off (see the top): the filter it
 * holds if it was written at generation @gen for @key, else the walk's,
 * which the entry then holds.  The key is copied before the walk, which
 * writes port ranges into it.
 */
static struct cls_fl_filter *fl_cache_lookup(struct fl_cache *cache, u32 gen,
					     struct fl_masks *masks,
					     struct fl_flow_key *key)
{
	const unsigned long *k = (const unsigned long *)key;
	u32 hash = fl_cache_hash(cache, k);
	struct fl_cache_entry *e;
	struct cls_fl_filter *f;

	lockdep_assert_in_softirq();
	e = (struct fl_cache_entry *)(this_cpu_ptr(cache->entries) +
				      (hash & cache->slots) * cache->stride);
	if (e->gen == gen && e->hash == hash &&
	    fl_cache_key_eq(cache, e->key, k))
		return e->f;

	e->gen = 0;
	e->hash = hash;
	fl_cache_key_copy(cache, e->key, k);
	f = fl_lookup(masks, key);
	e->f = f;
	e->gen = gen;
	return f;
}

static int fl_classify(struct sk_buff *skb, const struct tcf_proto *tp,
		       struct tcf_result *res)
{
	struct cls_fl_head *head = rcu_dereference_bh(tp->root);
	/* One key for every mask: the stack frame stays small.  fl_dissect()
	 * clears what the masks read; the compiler's own zeroing of stack
	 * variables (CONFIG_INIT_STACK_ALL_ZERO) would clear all of it, some
	 * 500 bytes, for every packet.
	 */
	struct fl_flow_key skb_key __uninitialized;
	struct fl_masks *masks;
	struct fl_cache *cache;
	struct cls_fl_filter *f;
	u32 gen;

	/* The cache and its generation before the set: see the top */
	cache = rcu_dereference_bh(head->cache);
	/* Pairs with fl_cache_changed(): the walk sees the changes before */
	gen = cache ? smp_load_acquire(&cache->gen) : 0;
	masks = rcu_dereference_bh(head->masks);
	if (unlikely(!masks))
		return -1;

	fl_dissect(skb, masks, &skb_key);
	if (cache && likely(cache->span == masks->clear_end))
		f = fl_cache_lookup(cache, gen, masks, &skb_key);
	else
		f = fl_lookup(masks, &skb_key);
	if (!f)
		return -1;
	*res = f->res;
	return tcf_exts_exec(skb, &f->exts, res);
}

/* Only for the bench: with false, a mask's next change after it is set
 * takes its index away, and the mask walks its ranges (both costs from
 * one module).
 */
static bool range_index = true;
module_param(range_index, bool, 0644);
MODULE_PARM_DESC(range_index, "Index of a mask's port ranges (bench)");

/* A distinct range of a mask and its rank: the position of its first
 * filter on range_filters
 */
struct fl_range {
	u16 min;
	u16 max;
	u32 rank;
};

static int fl_range_cmp(const void *a, const void *b)
{
	const struct fl_range *x = a, *y = b;

	if (x->min != y->min)
		return x->min < y->min ? -1 : 1;
	if (x->max != y->max)
		return x->max < y->max ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Under head->lock: @mask's ranges of the @dst (else src) port into
 * @r, sorted by bounds, one per distinct range with its lowest rank.
 * Returns how many.
 */
static unsigned int fl_range_collect(struct fl_flow_mask *mask, bool dst,
				     struct fl_range *r)
{
	const struct flow_dissector_key_ports_range *k;
	struct cls_fl_filter *f;
	unsigned int n = 0, i, d;

	list_for_each_entry(f, &mask->range_filters, range_node) {
		k = &f->mkey.tp_range;
		r[n].min = ntohs(dst ? k->tp_min.dst : k->tp_min.src);
		r[n].max = ntohs(dst ? k->tp_max.dst : k->tp_max.src);
		r[n].rank = n;
		n++;
	}
	sort(r, n, sizeof(*r), fl_range_cmp, NULL);
	for (i = 0, d = 0; i < n; i++)
		if (!d || r[i].min != r[d - 1].min || r[i].max != r[d - 1].max)
			r[d++] = r[i];
	return d;
}

/* One pass over the segments that the @d ranges of @r (from
 * fl_range_collect()) cut 0..65535 into, with the ranges holding each in
 * rank order (at most FL_RANGE_DEPTH).  Counts segments and cover
 * entries into @idx->segs and @entries, and writes them unless
 * @idx->first is NULL.  Returns -E2BIG past FL_RANGE_DEPTH.
 */
static int fl_range_sweep(const struct fl_range *r, unsigned int d,
			  struct fl_range_index *idx, unsigned int *entries)
{
	const struct fl_range *act[FL_RANGE_DEPTH];
	unsigned int nact = 0, next = 0, i, j;
	u32 port = 0, bound;

	idx->segs = 0;
	*entries = 0;
	for (;;) {
		/* the ranges that end below @port leave, those from it join */
		for (i = 0, j = 0; i < nact; i++)
			if (act[i]->max >= port)
				act[j++] = act[i];
		nact = j;
		for (; next < d && r[next].min == port; next++) {
			if (nact == FL_RANGE_DEPTH)
				return -E2BIG;
			for (i = nact++; i && act[i - 1]->rank > r[next].rank;
			     i--)
				act[i] = act[i - 1];
			act[i] = &r[next];
		}
		if (idx->first) {
			struct fl_range_cover *c = &idx->cover[*entries];

			idx->start[idx->segs] = port;
			idx->first[idx->segs] = *entries;
			for (i = 0; i < nact; i++) {
				c[i].min = htons(act[i]->min);
				c[i].max = htons(act[i]->max);
			}
		}
		idx->segs++;
		*entries += nact;
		/* the next port where a range begins or ends */
		bound = next < d ? r[next].min : 65536;
		for (i = 0; i < nact; i++)
			bound = min_t(u32, bound, act[i]->max + 1);
		if (bound > 65535)
			break;
		port = bound;
	}
	if (idx->first)
		idx->first[idx->segs] = *entries;
	return 0;
}

/* Under head->lock: @mask's index of its @d ranges @r, or NULL (too
 * deep, or no memory: the mask walks)
 */
static struct fl_range_index *fl_range_index_create(const struct fl_range *r,
						    unsigned int d, bool dst)
{
	struct fl_range_index count = {}, *idx;
	unsigned int entries;
	size_t size;

	if (fl_range_sweep(r, d, &count, &entries))
		return NULL;
	size = struct_size(idx, cover, entries);
	size = size_add(size, array_size(count.segs + 1, sizeof(u32)));
	size = size_add(size, array_size(count.segs, sizeof(u16)));
	idx = kvzalloc(size, GFP_KERNEL);
	if (!idx)
		return NULL;
	idx->dst = dst;
	idx->first = (u32 *)&idx->cover[entries];
	idx->start = (u16 *)&idx->first[count.segs + 1];
	fl_range_sweep(r, d, idx, &entries);
	return idx;
}

/* Under head->lock: @mask's index in place of the one it has (NULL: the
 * walk), the old one freed after a grace period
 */
static void fl_range_index_set(struct cls_fl_head *head,
			       struct fl_flow_mask *mask,
			       struct fl_range_index *idx)
{
	struct fl_range_index *old;

	/* Orders the index's contents before the pointer classify loads */
	old = rcu_replace_pointer(mask->rindex, idx,
				  lockdep_is_held(&head->lock));
	if (old)
		kvfree_rcu(old, rcu);
}

/* Under head->lock: @mask gets the index of its ranges, unless it ranges
 * both ports, which stay a walk
 */
static void fl_range_index_build(struct cls_fl_head *head,
				 struct fl_flow_mask *mask)
{
	const struct flow_dissector_key_ports_range *m = &mask->key.tp_range;
	struct fl_range_index *idx = NULL;
	unsigned int n = 0, d;
	struct list_head *pos;
	struct fl_range *r;

	mask->range_stale = false;
	if (!READ_ONCE(range_index) || (m->tp_min.dst && m->tp_min.src))
		goto out;
	list_for_each(pos, &mask->range_filters)
		n++;
	r = kvmalloc_array(max(n, 1U), sizeof(*r), GFP_KERNEL);
	if (!r)
		goto out;
	d = fl_range_collect(mask, m->tp_min.dst, r);
	idx = fl_range_index_create(r, d, m->tp_min.dst);
	kvfree(r);
out:
	fl_range_index_set(head, mask, idx);
}

/* The work of fl_range_changed(): indexes for the masks that changed */
static void fl_range_work(struct work_struct *work)
{
	struct cls_fl_head *head = container_of(to_delayed_work(work),
						struct cls_fl_head,
						range_work);
	struct fl_masks *masks;
	unsigned int i;
	u64 start;

	mutex_lock(&head->lock);
	start = ktime_get_ns();
	masks = rcu_dereference_protected(head->masks,
					  lockdep_is_held(&head->lock));
	for (i = 0; masks && i < masks->n; i++)
		if (masks->mask[i]->range_stale)
			fl_range_index_build(head, masks->mask[i]);
	head->range_build_ns = ktime_get_ns() - start;
	mutex_unlock(&head->lock);
}

static int fl_init(struct tcf_proto *tp)
{
	struct cls_fl_head *head;

	head = kzalloc(sizeof(*head), GFP_KERNEL);
	if (!head)
		return -ENOBUFS;
	if (rhashtable_init(&head->mask_ht, &fl_mask_ht_params)) {
		kfree(head);
		return -ENOBUFS;
	}

	mutex_init(&head->lock);
	idr_init(&head->handle_idr);
	INIT_LIST_HEAD(&head->hw_filters);
	INIT_DELAYED_WORK(&head->range_work, fl_range_work);
	rcu_assign_pointer(tp->root, head);
	return 0;
}

/* Neither a set nor a filter can reach the mask any more */
static void fl_mask_free(struct fl_flow_mask *mask)
{
	rhashtable_destroy(&mask->ht);
	kvfree(rcu_dereference_protected(mask->rindex, 1));
	kfree(mask);
}

/* In process context: rhashtable_destroy() may sleep */
static void fl_mask_unref(struct fl_flow_mask *mask)
{
	if (refcount_dec_and_test(&mask->refs))
		fl_mask_free(mask);
}

/* The instance's reference, a grace period after the mask left the set */
static void fl_mask_release_work(struct work_struct *work)
{
	fl_mask_unref(container_of(to_rcu_work(work), struct fl_flow_mask,
				   rwork));
}

static void __fl_filter_free(struct cls_fl_filter *f)
{
	tcf_exts_destroy(&f->exts);
	tcf_exts_put_net(&f->exts);
	if (f->mask)
		fl_mask_unref(f->mask);
	kfree(f);
}

/* Runs after a grace period; freeing actions needs no RTNL */
static void fl_filter_free_work(struct work_struct *work)
{
	__fl_filter_free(container_of(to_rcu_work(work),
				      struct cls_fl_filter, rwork));
}

/* Drops a reference.  The last one goes when @f is out of the tables, but
 * classifiers that found it before may run its actions until a grace
 * period ends.
 */
static void fl_filter_put(struct cls_fl_filter *f)
{
	if (!refcount_dec_and_test(&f->refs))
		return;
	if (tcf_exts_get_net(&f->exts))
		tcf_queue_work(&f->rwork, fl_filter_free_work);
	else
		__fl_filter_free(f);
}

/* For a filter that was never visible to classify or to another request */
static void fl_filter_discard(struct tcf_proto *tp, struct cls_fl_filter *f)
{
	tcf_unbind_filter(tp, &f->res);
	tcf_exts_destroy(&f->exts);
	kfree(f);
}

/* Without head->lock: the instance's reference to a removed filter */
static void fl_filter_release(struct tcf_proto *tp, struct cls_fl_filter *f)
{
	tcf_unbind_filter(tp, &f->res);
	fl_filter_put(f);
}

static void fl_cache_free(struct fl_cache *cache)
{
	free_percpu(cache->entries);
	kfree(cache);
}

static void fl_cache_free_rcu(struct rcu_head *rcu)
{
	fl_cache_free(container_of(rcu, struct fl_cache, rcu));
}

static void fl_head_free_work(struct work_struct *work)
{
	struct cls_fl_head *head = container_of(to_rcu_work(work),
						struct cls_fl_head, rwork);
	/* A grace period has passed: nobody can see the instance any more */
	struct fl_masks *masks = rcu_dereference_protected(head->masks, 1);
	struct fl_cache *cache = rcu_dereference_protected(head->cache, 1);
	unsigned int i;

	rhashtable_destroy(&head->mask_ht);
	if (cache)
		fl_cache_free(cache);
	if (masks) {
		for (i = 0; i < masks->n; i++)
			fl_mask_unref(masks->mask[i]);
		kvfree(masks);
	}
	mutex_destroy(&head->lock);
	kfree(head);
}

/* Whether a driver is given dissector key @dk of a mask, as flower has
 * always given them: the keys the mask looks at.  The IPv4 and IPv6
 * members share memory, so an address mask names both (drivers read
 * addr_type), and the tunnel's control key comes with its addresses.
 */
static bool fl_hw_key_used(const struct fl_flow_key *mask,
			   const struct fl_dissector_key *dk)
{
	switch (dk->id) {
	case FLOW_DISSECTOR_KEY_CONTROL:
	case FLOW_DISSECTOR_KEY_BASIC:
		return true;
	case FLOW_DISSECTOR_KEY_ENC_CONTROL:
		return memchr_inv(&mask->enc_ipv6, 0, sizeof(mask->enc_ipv6));
	default:
		return memchr_inv((const u8 *)mask + dk->offset, 0, dk->len);
	}
}

static void fl_hw_dissector_init(struct flow_dissector *dissector,
				 const struct fl_flow_key *mask)
{
	struct flow_dissector_key keys[ARRAY_SIZE(fl_dissector_keys) + 1];
	unsigned int i, cnt = 0;

	if (mask->meta.ingress_ifindex) {
		keys[cnt].key_id = FLOW_DISSECTOR_KEY_META;
		keys[cnt++].offset = offsetof(struct fl_flow_key, meta);
	}
	for (i = 0; i < ARRAY_SIZE(fl_dissector_keys); i++) {
		const struct fl_dissector_key *dk = &fl_dissector_keys[i];

		if (!fl_hw_key_used(mask, dk))
			continue;
		keys[cnt].key_id = dk->id;
		keys[cnt++].offset = dk->offset;
	}
	skb_flow_dissector_init(dissector, keys, cnt);
}

/* The Geneve option at @off, laid out as on the wire */
static struct geneve_opt *fl_geneve_opt(struct flow_dissector_key_enc_opts *o,
					unsigned int off)
{
	return (struct geneve_opt *)&o->data[off];
}

static unsigned int fl_geneve_opt_len(const struct geneve_opt *opt)
{
	return sizeof(*opt) + opt->length * 4;
}

/* @hw, a copy of a mask, as drivers get it for @key's Geneve options:
 * with the options' lengths as @key has them and the option kind Geneve,
 * as the tree's flower gives them.  Software matches the lengths exactly,
 * so the mask's lengths have all their bits set (fl_set_key_geneve_opts());
 * but drivers read a mask's lengths as lengths: nfp copies enc_opts.len
 * bytes of options into its rule, mlx5e an option's length times four
 * into a u32.
 */
static void fl_hw_geneve_lengths(struct fl_flow_key *hw,
				 struct fl_flow_key *key)
{
	struct geneve_opt *opt;
	unsigned int off;

	if (key->enc_opts.dst_opt_type != TUNNEL_GENEVE_OPT)
		return;
	hw->enc_opts.len = key->enc_opts.len;
	hw->enc_opts.dst_opt_type = TUNNEL_GENEVE_OPT;
	for (off = 0; off < key->enc_opts.len; off += fl_geneve_opt_len(opt)) {
		opt = fl_geneve_opt(&key->enc_opts, off);
		fl_geneve_opt(&hw->enc_opts, off)->length = opt->length;
	}
}

/* The rule for @f seen through @mask, with @dissector, the caller's, for
 * the time of one call.  The caller frees cls->rule and the mask it may
 * hold (fl_hw_rule_free() with the same @mask).
 */
static int fl_hw_rule_init(struct flow_cls_offload *cls, struct tcf_proto *tp,
			   struct cls_fl_filter *f,
			   const struct fl_flow_key *mask,
			   struct flow_dissector *dissector,
			   enum flow_cls_command command,
			   struct netlink_ext_ack *extack)
{
	int err;

	cls->rule = flow_rule_alloc(tcf_exts_num_actions(&f->exts));
	if (!cls->rule)
		return -ENOMEM;

	tc_cls_common_offload_init(&cls->common, tp, f->flags, extack);
	cls->command = command;
	cls->cookie = (unsigned long)f;
	cls->classid = f->res.classid;
	fl_hw_dissector_init(dissector, mask);
	cls->rule->match.dissector = dissector;
	cls->rule->match.mask = (void *)mask;
	cls->rule->match.key = &f->mkey;
	if (f->mkey.enc_opts.dst_opt_type == TUNNEL_GENEVE_OPT) {
		cls->rule->match.mask = kmemdup(mask, sizeof(*mask),
						GFP_KERNEL);
		if (!cls->rule->match.mask) {
			err = -ENOMEM;
			goto err_rule;
		}
		fl_hw_geneve_lengths(cls->rule->match.mask, &f->mkey);
	}

	err = tc_setup_offload_action(&cls->rule->action, &f->exts,
				      cls->common.extack);
	if (err)
		goto err_mask;
	return 0;

err_mask:
	if (cls->rule->match.mask != mask)
		kfree(cls->rule->match.mask);
err_rule:
	kfree(cls->rule);
	cls->rule = NULL;
	return err;
}

static void fl_hw_rule_free(struct flow_cls_offload *cls,
			    const struct fl_flow_key *mask)
{
	tc_cleanup_offload_action(&cls->rule->action);
	if (cls->rule->match.mask != mask)
		kfree(cls->rule->match.mask);
	kfree(cls->rule);
}

/* Under tp->lock, from within tc_setup_cb_add(): see the top */
static void fl_hw_list_add(struct tcf_proto *tp, struct cls_fl_filter *f)
{
	spin_lock(&tp->lock);
	list_add(&f->hw_list, &fl_head(tp)->hw_filters);
	spin_unlock(&tp->lock);
}

/* Whether no driver is bound to the block, which then stays so until the
 * caller releases block->cb_lock (a driver binds under it, for writing).
 */
static bool fl_hw_unbound(struct tcf_block *block)
{
	down_read(&block->cb_lock);
	if (list_empty(&block->flow_block.cb_list))
		return true;
	up_read(&block->cb_lock);
	return false;
}

static void fl_hw_destroy_filter(struct tcf_proto *tp, struct cls_fl_filter *f,
				 bool rtnl_held, struct netlink_ext_ack *extack)
{
	struct flow_cls_offload cls = {};

	tc_cls_common_offload_init(&cls.common, tp, f->flags, extack);
	cls.command = FLOW_CLS_DESTROY;
	cls.cookie = (unsigned long)f;

	tc_setup_cb_destroy(tp->chain->block, tp, TC_SETUP_CLSFLOWER, &cls,
			    false, &f->flags, &f->in_hw_count, rtnl_held);
}

/* Offers @f, seen through @mask, to the block's drivers.  Fails when a
 * skip_sw filter is not taken; an error of a driver that gives no reason
 * is reported as flower has always reported it, with the driver's errno.
 */
static int fl_hw_replace_filter(struct tcf_proto *tp, struct cls_fl_filter *f,
				const struct fl_flow_key *mask, bool rtnl_held,
				struct netlink_ext_ack *extack)
{
	struct tcf_block *block = tp->chain->block;
	bool skip_sw = tc_skip_sw(f->flags);
	struct flow_dissector dissector;
	struct flow_cls_offload cls = {};
	int err;

	/* No driver: what tc_setup_cb_add() would do, without the rule */
	if (!skip_sw && fl_hw_unbound(block)) {
		fl_hw_list_add(tp, f);
		up_read(&block->cb_lock);
		return 0;
	}

	err = fl_hw_rule_init(&cls, tp, f, mask, &dissector, FLOW_CLS_REPLACE,
			      extack);
	if (err)
		return skip_sw || err == -ENOMEM ? err : 0;

	err = tc_setup_cb_add(block, tp, TC_SETUP_CLSFLOWER, &cls, skip_sw,
			      &f->flags, &f->in_hw_count, rtnl_held);
	fl_hw_rule_free(&cls, mask);
	if (err) {
		/* cls_api refuses skip_sw before it asks any driver */
		if (err == -EOPNOTSUPP && READ_ONCE(block->nooffloaddevcnt))
			NL_SET_ERR_MSG(extack,
				       "skip_sw filter not taken: a device of the block cannot offload");
		fl_hw_destroy_filter(tp, f, rtnl_held, NULL);
		return err;
	}
	if (skip_sw && !tc_in_hw(f->flags)) {
		fl_hw_destroy_filter(tp, f, rtnl_held, NULL);
		NL_SET_ERR_MSG(extack,
			       "skip_sw filter not taken: no driver on the block offloads it");
		return -EINVAL;
	}
	return 0;
}

/* A filter no driver took is marked so; cls_api sets IN_HW */
static void fl_hw_flags_update(struct tcf_proto *tp, struct cls_fl_filter *f)
{
	spin_lock(&tp->lock);
	if (!tc_in_hw(f->flags))
		f->flags |= TCA_CLS_FLAGS_NOT_IN_HW;
	spin_unlock(&tp->lock);
	tcf_proto_update_usesw(tp, f->flags);
}

/* The drivers' counters, added to the actions' */
static void fl_hw_update_stats(struct tcf_proto *tp, struct cls_fl_filter *f,
			       bool rtnl_held)
{
	struct flow_cls_offload cls = {};

	tc_cls_common_offload_init(&cls.common, tp, f->flags, NULL);
	cls.command = FLOW_CLS_STATS;
	cls.cookie = (unsigned long)f;
	cls.classid = f->res.classid;

	tc_setup_cb_call(tp->chain->block, TC_SETUP_CLSFLOWER, &cls, false,
			 rtnl_held);

	tcf_exts_hw_stats_update(&f->exts, cls.stats.bytes, cls.stats.pkts,
				 cls.stats.drops, cls.stats.lastused,
				 cls.stats.used_hw_stats,
				 cls.stats.used_hw_stats_valid);
}

/* A chain template is a hint to drivers: their answers do not matter */
static void fl_hw_tmplt_init(struct flow_cls_offload *cls,
			     struct fl_tmplt *tmplt,
			     enum flow_cls_command command)
{
	cls->common.chain_index = tmplt->chain->index;
	cls->command = command;
	cls->cookie = (unsigned long)tmplt;
	if (cls->rule) {
		cls->rule->match.dissector = &tmplt->dissector;
		cls->rule->match.mask = &tmplt->hw_mask;
		cls->rule->match.key = &tmplt->key;
	}
}

/* The last reference to the instance is gone: no request runs on it */
static void fl_destroy(struct tcf_proto *tp, bool rtnl_held,
		       struct netlink_ext_ack *extack)
{
	struct cls_fl_head *head = fl_head(tp);
	unsigned long handle, tmp;
	struct cls_fl_filter *f;

	/* No index is built for a mask that goes */
	cancel_delayed_work_sync(&head->range_work);
	/* Out of the tables before they are freed: a resize running in the
	 * background must not walk into a freed filter.
	 */
	idr_for_each_entry_ul(&head->handle_idr, f, tmp, handle) {
		rhashtable_remove_fast(&f->mask->ht, &f->ht_node,
				       f->mask->ht_params);
		if (!tc_skip_hw(f->flags))
			fl_hw_destroy_filter(tp, f, rtnl_held, extack);
		fl_filter_release(tp, f);
	}
	idr_destroy(&head->handle_idr);

	tcf_queue_work(&head->rwork, fl_head_free_work);
}

/* The filter with @handle, with a reference for the caller (fl_put()) */
static void *fl_get(struct tcf_proto *tp, u32 handle)
{
	struct cls_fl_filter *f;

	rcu_read_lock();
	f = idr_find(&fl_head(tp)->handle_idr, handle);
	if (f && !refcount_inc_not_zero(&f->refs))
		f = NULL;
	rcu_read_unlock();
	return f;
}

static void fl_put(struct tcf_proto *tp, void *arg)
{
	fl_filter_put(arg);
}

/* The length of a fixed-size attribute of policy @pt, or 0 */
static int fl_attr_len(const struct nla_policy *pt)
{
	switch (pt->type) {
	case NLA_U8:
		return sizeof(u8);
	case NLA_U16:
		return sizeof(u16);
	case NLA_U32:
		return sizeof(u32);
	case NLA_BINARY:
		return pt->validation_type == NLA_VALIDATE_MIN ? pt->min : 0;
	default:
		return 0;
	}
}

/* Says what the liberal parse let through without a word */
static void fl_warn_lax_attrs(const struct nlattr *opts,
			      struct netlink_ext_ack *extack)
{
	const struct nlattr *nla;
	int rem, len;

	nla_for_each_nested(nla, opts, rem) {
		int type = nla_type(nla);

		if (type <= TCA_FLOWER_UNSPEC || type > TCA_FLOWER_MAX) {
			fl_warn(extack,
				"Unknown flower attribute type ignored");
			continue;
		}
		if (type == TCA_FLOWER_IN_HW_COUNT)
			fl_warn(extack,
				"TCA_FLOWER_IN_HW_COUNT is only dumped: ignored");
		len = fl_attr_len(&fl_policy[type]);
		if (len && nla_len(nla) > len)
			fl_warn(extack,
				"Flower attribute longer than its type: its first bytes are used");
	}
}

/* Every attribute is checked before any is used */
static int fl_parse_opts(struct nlattr *opts, struct nlattr **tb,
			 struct netlink_ext_ack *extack)
{
	int err;

	if (!opts) {
		NL_SET_ERR_MSG(extack, "Missing flower options");
		return -EINVAL;
	}

	err = __nla_parse(tb, TCA_FLOWER_MAX, nla_data(opts), nla_len(opts),
			  fl_policy, NL_VALIDATE_LIBERAL, extack);
	if (!err)
		fl_warn_lax_attrs(opts, extack);
	return err;
}

static int fl_set_flags(struct nlattr **tb, u32 *flags,
			struct netlink_ext_ack *extack)
{
	if (!tb[TCA_FLOWER_FLAGS])
		return 0;

	*flags = nla_get_u32(tb[TCA_FLOWER_FLAGS]);
	if (!tc_flags_valid(*flags)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_FLOWER_FLAGS],
				    "Invalid flower flags");
		return -EINVAL;
	}
	return 0;
}

static bool fl_proto_is(const struct fl_flow_key *key,
			const struct fl_flow_key *mask, u16 proto)
{
	return mask->basic.n_proto == htons(0xffff) &&
	       key->basic.n_proto == htons(proto);
}

static bool fl_ip_proto_is(const struct fl_flow_key *key,
			   const struct fl_flow_key *mask, u8 ip_proto)
{
	return mask->basic.ip_proto == 0xff && key->basic.ip_proto == ip_proto;
}

/* num_of_vlans is an exact key: zero when the filter does not give it */
static u8 fl_num_of_vlans(const struct fl_flow_key *key)
{
	return key->num_of_vlans.num_of_vlans;
}

static bool fl_need_met(const struct fl_flow_key *key,
			const struct fl_flow_key *mask, enum fl_need need)
{
	switch (need) {
	case FL_NEED_NONE:
		return true;
	case FL_NEED_IP:
		return fl_proto_is(key, mask, ETH_P_IP) ||
		       fl_proto_is(key, mask, ETH_P_IPV6);
	case FL_NEED_IPV4_ADDRS:
		return key->control.addr_type == FLOW_DISSECTOR_KEY_IPV4_ADDRS;
	case FL_NEED_NO_IPV4_ADDRS:
		return key->control.addr_type != FLOW_DISSECTOR_KEY_IPV4_ADDRS;
	case FL_NEED_ENC_IPV6_ADDRS:
		return key->enc_control.addr_type ==
		       FLOW_DISSECTOR_KEY_IPV6_ADDRS;
	case FL_NEED_NO_ENC_IPV6_ADDRS:
		return key->enc_control.addr_type !=
		       FLOW_DISSECTOR_KEY_IPV6_ADDRS;
	case FL_NEED_TCP:
		return fl_ip_proto_is(key, mask, IPPROTO_TCP);
	case FL_NEED_UDP:
		return fl_ip_proto_is(key, mask, IPPROTO_UDP);
	case FL_NEED_SCTP:
		return fl_ip_proto_is(key, mask, IPPROTO_SCTP);
	case FL_NEED_L4:
		return fl_ip_proto_is(key, mask, IPPROTO_TCP) ||
		       fl_ip_proto_is(key, mask, IPPROTO_UDP) ||
		       fl_ip_proto_is(key, mask, IPPROTO_SCTP);
	case FL_NEED_ICMPV4:
		return fl_proto_is(key, mask, ETH_P_IP) &&
		       fl_ip_proto_is(key, mask, IPPROTO_ICMP);
	case FL_NEED_ICMPV6:
		return fl_proto_is(key, mask, ETH_P_IPV6) &&
		       fl_ip_proto_is(key, mask, IPPROTO_ICMPV6);
	case FL_NEED_ARP:
		return fl_proto_is(key, mask, ETH_P_ARP) ||
		       fl_proto_is(key, mask, ETH_P_RARP);
	case FL_NEED_VLAN:
		return mask->vlan.vlan_tpid || fl_num_of_vlans(key) > 0;
	case FL_NEED_CVLAN:
		return mask->cvlan.vlan_tpid || fl_num_of_vlans(key) > 1;
	case FL_NEED_MPLS:
		return fl_proto_is(key, mask, ETH_P_MPLS_UC) ||
		       fl_proto_is(key, mask, ETH_P_MPLS_MC);
	case FL_NEED_PPPOE:
		return mask->pppoe.type;
	case FL_NEED_L2TP:
		return fl_ip_proto_is(key, mask, IPPROTO_L2TP);
	}
	return false;
}

/* The first of @attrs present in @tb, or NULL */
static struct nlattr *fl_first_attr(struct nlattr **tb, const int *attrs,
				    int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (tb[attrs[i]])
			return tb[attrs[i]];
	return NULL;
}

/* False, with a warning, when one of @attrs is in @tb but @need is not
 * met: then the caller leaves those keys out
 */
static bool fl_check_need(struct nlattr **tb, const int *attrs, int n,
			  const struct fl_flow_key *key,
			  const struct fl_flow_key *mask, enum fl_need need,
			  struct netlink_ext_ack *extack)
{
	if (fl_first_attr(tb, attrs, n) && !fl_need_met(key, mask, need)) {
		fl_warn_need(extack, need);
		return false;
	}
	return true;
}

/* tcf_change_indev() looks the name up as RTNL's holder may; requests
 * here may hold no RTNL, so the device is looked up under RCU.
 */
static int fl_set_key_indev(struct net *net, struct nlattr **tb,
			    struct fl_flow_key *key, struct fl_flow_key *mask,
			    struct netlink_ext_ack *extack)
{
	struct nlattr *nla = tb[TCA_FLOWER_INDEV];
	struct net_device *dev;
	char name[IFNAMSIZ];

	if (!nla)
		return 0;
	if (nla_strscpy(name, nla, IFNAMSIZ) < 0) {
		NL_SET_ERR_MSG_ATTR(extack, nla, "Interface name too long");
		return -EINVAL;
	}
	rcu_read_lock();
	dev = dev_get_by_name_rcu(net, name);
	if (dev)
		key->meta.ingress_ifindex = dev->ifindex;
	rcu_read_unlock();
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, nla, "Network device not found");
		return -ENODEV;
	}
	mask->meta.ingress_ifindex = ~0;
	return 0;
}

/* The id, priority and TPID (0: any) of one tag; its inner ethertype is
 * the caller's.  Wider ids and priorities are masked to their bits, as
 * flower has always done.
 */
static void fl_set_key_tag(struct nlattr *vid, struct nlattr *prio,
			   __be16 tpid, struct flow_dissector_key_vlan *key,
			   struct flow_dissector_key_vlan *mask,
			   struct netlink_ext_ack *extack)
{
	const u8 prio_mask = VLAN_PRIO_MASK >> VLAN_PRIO_SHIFT;

	if (vid) {
		if (nla_get_u16(vid) & ~VLAN_VID_MASK)
			fl_warn(extack,
				"VLAN id above 4095: its low 12 bits are matched");
		key->vlan_id = nla_get_u16(vid) & VLAN_VID_MASK;
		mask->vlan_id = VLAN_VID_MASK;
	}
	if (prio) {
		if (nla_get_u8(prio) & ~prio_mask)
			fl_warn(extack,
				"VLAN priority above 7: its low 3 bits are matched");
		key->vlan_priority = nla_get_u8(prio) & prio_mask;
		mask->vlan_priority = prio_mask;
	}
	if (tpid) {
		key->vlan_tpid = tpid;
		mask->vlan_tpid = htons(0xffff);
	}
}

/* A tag is expected where the ethertype is a VLAN TPID, or where
 * num_of_vlans asks for more tags than come before it, as flower has
 * always done: "num_of_vlans 1 vlan_prio 5" with protocol all (a tag of
 * any TPID), "protocol 802.1q ... num_of_vlans 2 vlan_id 10 cvlan_id 20".
 */
static bool fl_is_tag(__be16 ethertype, struct nlattr **tb, u8 before)
{
	struct nlattr *nvlans = tb[TCA_FLOWER_KEY_NUM_OF_VLANS];

	return eth_type_vlan(ethertype) ||
	       (nvlans && nla_get_u8(nvlans) > before);
}

static void fl_set_key_n_proto(__be16 ethertype, struct fl_flow_key *key,
			       struct fl_flow_key *mask)
{
	key->basic.n_proto = ethertype;
	mask->basic.n_proto = htons(0xffff);
}

/* A PPPoE session filter: the dissector reports the protocol carried in
 * PPP as basic.n_proto, so the session ethertype is matched as the PPPoE
 * key's type (like a VLAN TPID), and ppp_proto ip/ipv6/mpls sets
 * basic.n_proto for the keys of that protocol.
 */
static int fl_set_key_pppoe(struct nlattr **tb, struct fl_flow_key *key,
			    struct fl_flow_key *mask,
			    struct netlink_ext_ack *extack)
{
	struct nlattr *proto = tb[TCA_FLOWER_KEY_PPP_PROTO];
	static const struct {
		u16 ppp;
		u16 eth;
	} carried[] = {
		{ PPP_IP,	ETH_P_IP },
		{ PPP_IPV6,	ETH_P_IPV6 },
		{ PPP_MPLS_UC,	ETH_P_MPLS_UC },
		{ PPP_MPLS_MC,	ETH_P_MPLS_MC },
	};
	int i;

	key->pppoe.type = htons(ETH_P_PPP_SES);
	mask->pppoe.type = htons(0xffff);
	if (!proto)
		return 0;

	key->pppoe.ppp_proto = nla_get_be16(proto);
	mask->pppoe.ppp_proto = htons(0xffff);
	for (i = 0; i < ARRAY_SIZE(carried); i++)
		if (key->pppoe.ppp_proto == htons(carried[i].ppp))
			fl_set_key_n_proto(htons(carried[i].eth), key, mask);
	return 0;
}

/* The innermost ethertype: PPPoE session frames are keyed like untagged
 * ones, whatever tags come before them.
 */
static int fl_set_key_inner(struct nlattr **tb, __be16 ethertype,
			    struct fl_flow_key *key, struct fl_flow_key *mask,
			    struct netlink_ext_ack *extack)
{
	if (ethertype == htons(ETH_P_PPP_SES))
		return fl_set_key_pppoe(tb, key, mask, extack);
	fl_set_key_n_proto(ethertype, key, mask);
	return 0;
}

/* The tags of a 802.1q/802.1ad filter, or of one whose num_of_vlans says
 * there are tags (@tpid 0: any TPID): the outer one (vlan_*), and the
 * inner one (cvlan_*) when vlan_ethtype is itself a TPID or num_of_vlans
 * says there are two.  The ethertype after the outer tag is the VLAN
 * key's vlan_eth_type, and the innermost one is also basic.n_proto, which
 * the IP keys look at.
 */
static int fl_set_key_vlans(struct nlattr **tb, __be16 tpid,
			    struct fl_flow_key *key, struct fl_flow_key *mask,
			    struct netlink_ext_ack *extack)
{
	struct nlattr *next = tb[TCA_FLOWER_KEY_VLAN_ETH_TYPE];
	struct nlattr *inner = tb[TCA_FLOWER_KEY_CVLAN_ETH_TYPE];
	__be16 ethertype = 0;

	fl_set_key_tag(tb[TCA_FLOWER_KEY_VLAN_ID], tb[TCA_FLOWER_KEY_VLAN_PRIO],
		       tpid, &key->vlan, &mask->vlan, extack);

	if (next) {
		ethertype = nla_get_be16(next);
		key->vlan.vlan_eth_type = ethertype;
		mask->vlan.vlan_eth_type = htons(0xffff);
	}
	if (!fl_is_tag(ethertype, tb, 1))
		return next ? fl_set_key_inner(tb, ethertype, key, mask,
					       extack) : 0;

	fl_set_key_tag(tb[TCA_FLOWER_KEY_CVLAN_ID],
		       tb[TCA_FLOWER_KEY_CVLAN_PRIO], ethertype, &key->cvlan,
		       &mask->cvlan, extack);
	if (!inner)
		return 0;

	key->cvlan.vlan_eth_type = nla_get_be16(inner);
	mask->cvlan.vlan_eth_type = htons(0xffff);
	return fl_set_key_inner(tb, nla_get_be16(inner), key, mask, extack);
}

/* The filter's ethertype (TCA_FLOWER_KEY_ETH_TYPE, which tc and Open
 * vSwitch send equal to the filter's protocol): an ethertype, a VLAN TPID
 * with the tags' keys, or the PPPoE session ethertype with the PPP keys.
 * Without it, as always, the keys of a protocol do not apply, and only
 * num_of_vlans can ask for tags (of any TPID).
 */
static int fl_set_key_eth_type(struct nlattr **tb, __be16 protocol,
			       struct fl_flow_key *key,
			       struct fl_flow_key *mask,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *nla = tb[TCA_FLOWER_KEY_ETH_TYPE];
	__be16 ethertype = nla ? nla_get_be16(nla) : 0;

	if (nla && protocol != htons(ETH_P_ALL) && ethertype != protocol)
		fl_warn(extack,
			"Key eth_type differs from the filter's protocol: a packet must have both");

	if (fl_is_tag(ethertype, tb, 0))
		return fl_set_key_vlans(tb, ethertype, key, mask, extack);
	if (nla)
		return fl_set_key_inner(tb, ethertype, key, mask, extack);
	return 0;
}

/* Tag and PPP keys the protocol (or num_of_vlans) does not leave room for:
 * fl_set_key_eth_type() did not take them
 */
static void fl_warn_tags(struct nlattr **tb, const struct fl_flow_key *key,
			 const struct fl_flow_key *mask,
			 struct netlink_ext_ack *extack)
{
	static const int vlan_attrs[] = {
		TCA_FLOWER_KEY_VLAN_ID, TCA_FLOWER_KEY_VLAN_PRIO,
		TCA_FLOWER_KEY_VLAN_ETH_TYPE,
	};
	static const int cvlan_attrs[] = {
		TCA_FLOWER_KEY_CVLAN_ID, TCA_FLOWER_KEY_CVLAN_PRIO,
		TCA_FLOWER_KEY_CVLAN_ETH_TYPE,
	};
	static const int ppp_attrs[] = { TCA_FLOWER_KEY_PPP_PROTO };

	fl_check_need(tb, vlan_attrs, ARRAY_SIZE(vlan_attrs), key, mask,
		      FL_NEED_VLAN, extack);
	fl_check_need(tb, cvlan_attrs, ARRAY_SIZE(cvlan_attrs), key, mask,
		      FL_NEED_CVLAN, extack);
	fl_check_need(tb, ppp_attrs, ARRAY_SIZE(ppp_attrs), key, mask,
		      FL_NEED_PPPOE, extack);
}

/* ip_flags: the uAPI's bits, and the dissector's control flags they are */
static const struct {
	u32 uapi;
	u32 dissector;
} fl_ip_flags[] = {
	{ TCA_FLOWER_KEY_FLAGS_IS_FRAGMENT,	FLOW_DIS_IS_FRAGMENT },
	{ TCA_FLOWER_KEY_FLAGS_FRAG_IS_FIRST,	FLOW_DIS_FIRST_FRAG },
};

static u32 fl_ip_flags_to_dissector(u32 uapi)
{
	u32 flags = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(fl_ip_flags); i++)
		if (uapi & fl_ip_flags[i].uapi)
			flags |= fl_ip_flags[i].dissector;
	return flags;
}

static u32 fl_ip_flags_to_uapi(u32 dissector)
{
	u32 flags = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(fl_ip_flags); i++)
		if (dissector & fl_ip_flags[i].dissector)
			flags |= fl_ip_flags[i].uapi;
	return flags;
}

static int fl_set_key_ip_flags(struct nlattr **tb, struct fl_flow_key *key,
			       struct fl_flow_key *mask,
			       struct netlink_ext_ack *extack)
{
	const u32 known = TCA_FLOWER_KEY_FLAGS_IS_FRAGMENT |
			  TCA_FLOWER_KEY_FLAGS_FRAG_IS_FIRST;
	struct nlattr *val = tb[TCA_FLOWER_KEY_FLAGS];
	struct nlattr *msk = tb[TCA_FLOWER_KEY_FLAGS_MASK];
	u32 flags, flags_mask;

	if (!val) {
		if (msk)
			fl_warn(extack, "Mask given without its key: ignored");
		return 0;
	}
	if (!msk) {
		NL_SET_ERR_MSG_ATTR(extack, val, "Missing flags mask");
		return -EINVAL;
	}

	/* Bits without a meaning, or outside the mask, have always been
	 * dropped
	 */
	flags = be32_to_cpu(nla_get_be32(val));
	flags_mask = be32_to_cpu(nla_get_be32(msk));
	if ((flags | flags_mask) & ~known)
		fl_warn(extack,
			"Unknown flower key flags ignored: only frag and firstfrag");

	key->control.flags = fl_ip_flags_to_dissector(flags & flags_mask);
	mask->control.flags = fl_ip_flags_to_dissector(flags_mask);
	return 0;
}

/* One label stack entry's fields; @depth counts from 1 (outermost) */
static int fl_set_key_lse(struct nlattr *ttl, struct nlattr *bos,
			  struct nlattr *tc, struct nlattr *label, u8 depth,
			  struct fl_flow_key *key, struct fl_flow_key *mask,
			  struct netlink_ext_ack *extack)
{
	struct flow_dissector_mpls_lse *lkey = &key->mpls.ls[depth - 1];
	struct flow_dissector_mpls_lse *lmask = &mask->mpls.ls[depth - 1];

	if (bos && nla_get_u8(bos) & ~MPLS_BOS_MASK) {
		NL_SET_ERR_MSG_ATTR(extack, bos,
				    "Bottom Of Stack (BOS) must be 0 or 1");
		return -EINVAL;
	}
	if (tc && nla_get_u8(tc) & ~MPLS_TC_MASK) {
		NL_SET_ERR_MSG_ATTR(extack, tc,
				    "Traffic Class (TC) must be between 0 and 7");
		return -EINVAL;
	}
	if (label && nla_get_u32(label) & ~MPLS_LABEL_MASK) {
		NL_SET_ERR_MSG_ATTR(extack, label,
				    "Label must be between 0 and 1048575");
		return -EINVAL;
	}

	if (ttl) {
		lkey->mpls_ttl = nla_get_u8(ttl);
		lmask->mpls_ttl = MPLS_TTL_MASK;
	}
	if (bos) {
		lkey->mpls_bos = nla_get_u8(bos);
		lmask->mpls_bos = MPLS_BOS_MASK;
	}
	if (tc) {
		lkey->mpls_tc = nla_get_u8(tc);
		lmask->mpls_tc = MPLS_TC_MASK;
	}
	if (label) {
		lkey->mpls_label = nla_get_u32(label);
		lmask->mpls_label = MPLS_LABEL_MASK;
	}
	/* The packet must have an entry at this depth */
	dissector_set_mpls_lse(&key->mpls, depth - 1);
	dissector_set_mpls_lse(&mask->mpls, depth - 1);
	return 0;
}

static int fl_set_key_mpls_opt(struct nlattr *lse, struct fl_flow_key *key,
			       struct fl_flow_key *mask,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCA_FLOWER_KEY_MPLS_OPT_LSE_MAX + 1];
	struct nlattr *depth;
	int err;

	err = __nla_parse(tb, TCA_FLOWER_KEY_MPLS_OPT_LSE_MAX, nla_data(lse),
			  nla_len(lse), fl_mpls_lse_policy, FL_NLA_VALIDATE,
			  extack);
	if (err)
		return err;

	depth = tb[TCA_FLOWER_KEY_MPLS_OPT_LSE_DEPTH];
	if (!depth) {
		NL_SET_ERR_MSG_ATTR(extack, lse,
				    "Missing MPLS option \"depth\"");
		return -EINVAL;
	}
	if (!nla_get_u8(depth) || nla_get_u8(depth) > FLOW_DIS_MPLS_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, depth,
				    "MPLS depth must be between 1 and 7");
		return -EINVAL;
	}
	if (mask->mpls.used_lses & BIT(nla_get_u8(depth) - 1)) {
		NL_SET_ERR_MSG_ATTR(extack, depth,
				    "MPLS depth given more than once");
		return -EINVAL;
	}

	return fl_set_key_lse(tb[TCA_FLOWER_KEY_MPLS_OPT_LSE_TTL],
			      tb[TCA_FLOWER_KEY_MPLS_OPT_LSE_BOS],
			      tb[TCA_FLOWER_KEY_MPLS_OPT_LSE_TC],
			      tb[TCA_FLOWER_KEY_MPLS_OPT_LSE_LABEL],
			      nla_get_u8(depth), key, mask, extack);
}

/* Either the first entry's keys, or any entries' in the nested options */
static int fl_set_key_mpls(struct nlattr **tb, struct fl_flow_key *key,
			   struct fl_flow_key *mask,
			   struct netlink_ext_ack *extack)
{
	static const int mpls_attrs[] = {
		TCA_FLOWER_KEY_MPLS_TTL, TCA_FLOWER_KEY_MPLS_BOS,
		TCA_FLOWER_KEY_MPLS_TC, TCA_FLOWER_KEY_MPLS_LABEL,
		TCA_FLOWER_KEY_MPLS_OPTS,
	};
	/* the first entry's own attributes: all of them but the options */
	struct nlattr *first = fl_first_attr(tb, mpls_attrs,
					     ARRAY_SIZE(mpls_attrs) - 1);
	struct nlattr *opts = tb[TCA_FLOWER_KEY_MPLS_OPTS];
	struct nlattr *lse;
	int rem, err;

	if (!fl_check_need(tb, mpls_attrs, ARRAY_SIZE(mpls_attrs), key, mask,
			   FL_NEED_MPLS, extack))
		return 0;

	if (!opts)
		return first ? fl_set_key_lse(tb[TCA_FLOWER_KEY_MPLS_TTL],
					      tb[TCA_FLOWER_KEY_MPLS_BOS],
					      tb[TCA_FLOWER_KEY_MPLS_TC],
					      tb[TCA_FLOWER_KEY_MPLS_LABEL], 1,
					      key, mask, extack) : 0;
	if (first) {
		NL_SET_ERR_MSG_ATTR(extack, first,
				    "MPLS label, Traffic Class, Bottom Of Stack and Time To Live must be encapsulated in the MPLS options attribute");
		return -EBADMSG;
	}

	nla_for_each_nested(lse, opts, rem) {
		if (nla_type(lse) != TCA_FLOWER_KEY_MPLS_OPTS_LSE) {
			NL_SET_ERR_MSG_ATTR(extack, lse,
					    "Only LSE options are allowed in MPLS options");
			return -EINVAL;
		}
		err = fl_set_key_mpls_opt(lse, key, mask, extack);
		if (err)
			return err;
	}
	if (rem || !mask->mpls.used_lses) {
		NL_SET_ERR_MSG_ATTR(extack, opts,
				    "Malformed or empty MPLS options");
		return -EINVAL;
	}
	return 0;
}

/* A row's key: ignored where the filter does not give what it needs */
static void fl_set_key_val(struct nlattr **tb, const struct fl_key_desc *desc,
			   struct fl_flow_key *key, struct fl_flow_key *mask,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *val = tb[desc->type];
	struct nlattr *msk = desc->mask_type ? tb[desc->mask_type] : NULL;
	u8 *mask_member = (u8 *)mask + desc->offset;

	if (!val) {
		if (msk)
			fl_warn(extack, "Mask given without its key: ignored");
		return;
	}
	if (!fl_need_met(key, mask, desc->need)) {
		fl_warn_need(extack, desc->need);
		return;
	}

	/* At least as long as the member, but ct_labels, which may be short:
	 * the rest stays zero
	 */
	nla_memcpy((u8 *)key + desc->offset, val, desc->len);
	if (msk)
		nla_memcpy(mask_member, msk, desc->len);
	else
		memset(mask_member, 0xff, desc->len);
}

/* An address key also asks that the dissector saw an address of that
 * family: a truncated header leaves the addresses zero, and zero must not
 * match a filter's 0.0.0.0.  IPv4 addresses win over IPv6 ones (the rows
 * of those are then ignored), as they always have.
 */
static void fl_set_key_addr_type(struct nlattr **tb, struct fl_flow_key *key,
				 struct fl_flow_key *mask,
				 struct netlink_ext_ack *extack)
{
	u16 ethertype;

	if (tb[TCA_FLOWER_KEY_IPV4_SRC] || tb[TCA_FLOWER_KEY_IPV4_DST]) {
		key->control.addr_type = FLOW_DISSECTOR_KEY_IPV4_ADDRS;
		ethertype = ETH_P_IP;
	} else if (tb[TCA_FLOWER_KEY_IPV6_SRC] ||
		   tb[TCA_FLOWER_KEY_IPV6_DST]) {
		key->control.addr_type = FLOW_DISSECTOR_KEY_IPV6_ADDRS;
		ethertype = ETH_P_IPV6;
	} else {
		return;
	}
	mask->control.addr_type = ~0;
	if (mask->basic.n_proto && !fl_proto_is(key, mask, ethertype))
		fl_warn(extack,
			"Address key of another family than the filter's protocol: no packet matches");
}

/* The dissector reports 12 bits of TCP flags: others never match */
static void fl_warn_tcp_flags(const struct fl_flow_key *mask,
			      struct netlink_ext_ack *extack)
{
	if (mask->tcp.flags & ~htons(0x0fff))
		fl_warn(extack,
			"TCP flags mask has bits above 0xfff, which no packet sets");
}

/* A port range has both ends, the first below the second */
static int fl_check_port_range(struct nlattr **tb,
			       const struct fl_flow_key *key,
			       const struct fl_flow_key *mask,
			       struct netlink_ext_ack *extack)
{
	const struct flow_dissector_key_ports_range *k = &key->tp_range;
	const struct flow_dissector_key_ports_range *m = &mask->tp_range;

	if (m->tp_min.dst != m->tp_max.dst) {
		NL_SET_ERR_MSG(extack,
			       "Both min and max destination ports must be specified");
		return -EINVAL;
	}
	if (m->tp_min.src != m->tp_max.src) {
		NL_SET_ERR_MSG(extack,
			       "Both min and max source ports must be specified");
		return -EINVAL;
	}
	if (m->tp_min.dst && ntohs(k->tp_max.dst) <= ntohs(k->tp_min.dst)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_FLOWER_KEY_PORT_DST_MIN],
				    "Invalid destination port range (min must be strictly smaller than max)");
		return -EINVAL;
	}
	if (m->tp_min.src && ntohs(k->tp_max.src) <= ntohs(k->tp_min.src)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_FLOWER_KEY_PORT_SRC_MIN],
				    "Invalid source port range (min must be strictly smaller than max)");
		return -EINVAL;
	}
	return 0;
}

/* Both addr_type values of a tunnel have this bit: masked with it alone,
 * the key says "the packet came through a tunnel" without a family.
 */
#define FL_TUNNEL_ANY	(FLOW_DISSECTOR_KEY_IPV4_ADDRS & \
			 FLOW_DISSECTOR_KEY_IPV6_ADDRS)

/* A tunnel key also asks that the packet came with tunnel metadata: without
 * it the tunnel keys stay zero, and zero must not match a filter's
 * enc_key_id 0.  Tunnel addresses also fix the family.
 */
static void fl_set_key_enc_control(struct nlattr **tb,
				   struct fl_flow_key *key,
				   struct fl_flow_key *mask,
				   struct netlink_ext_ack *extack)
{
	static const int v4[] = {
		TCA_FLOWER_KEY_ENC_IPV4_SRC, TCA_FLOWER_KEY_ENC_IPV4_DST,
	};
	static const int v6[] = {
		TCA_FLOWER_KEY_ENC_IPV6_SRC, TCA_FLOWER_KEY_ENC_IPV6_DST,
	};
	static const int any[] = {
		TCA_FLOWER_KEY_ENC_KEY_ID, TCA_FLOWER_KEY_ENC_UDP_SRC_PORT,
		TCA_FLOWER_KEY_ENC_UDP_DST_PORT, TCA_FLOWER_KEY_ENC_IP_TOS,
		TCA_FLOWER_KEY_ENC_IP_TTL, TCA_FLOWER_KEY_ENC_OPTS,
	};
	struct nlattr *nla4 = fl_first_attr(tb, v4, ARRAY_SIZE(v4));
	struct nlattr *nla6 = fl_first_attr(tb, v6, ARRAY_SIZE(v6));

	BUILD_BUG_ON(!FL_TUNNEL_ANY);
	/* With both families, IPv6 is the tunnel's, as it always has been,
	 * and the IPv4 rows are ignored: the IPv4 addresses share their
	 * bytes with the IPv6 ones.
	 */
	if (nla4 || nla6) {
		key->enc_control.addr_type = nla6 ?
					     FLOW_DISSECTOR_KEY_IPV6_ADDRS :
					     FLOW_DISSECTOR_KEY_IPV4_ADDRS;
		mask->enc_control.addr_type = ~0;
	} else if (fl_first_attr(tb, any, ARRAY_SIZE(any))) {
		key->enc_control.addr_type = FL_TUNNEL_ANY;
		mask->enc_control.addr_type = FL_TUNNEL_ANY;
	}
}

/* Appends one TCA_FLOWER_KEY_ENC_OPTS_GENEVE option to @opts */
static int fl_set_geneve_opt(const struct nlattr *nla,
			     struct flow_dissector_key_enc_opts *opts,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCA_FLOWER_KEY_ENC_OPT_GENEVE_MAX + 1];
	struct geneve_opt *opt;
	struct nlattr *data;
	int err, len;

	/* Liberally, as flower has always parsed them */
	err = __nla_parse(tb, TCA_FLOWER_KEY_ENC_OPT_GENEVE_MAX, nla_data(nla),
			  nla_len(nla), fl_geneve_opt_policy,
			  NL_VALIDATE_LIBERAL, extack);
	if (err)
		return err;

	data = tb[TCA_FLOWER_KEY_ENC_OPT_GENEVE_DATA];
	if (!tb[TCA_FLOWER_KEY_ENC_OPT_GENEVE_CLASS] ||
	    !tb[TCA_FLOWER_KEY_ENC_OPT_GENEVE_TYPE] || !data) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "Geneve option needs class, type and data");
		return -EINVAL;
	}
	len = nla_len(data);
	if (len < 4 || len > FL_GENEVE_DATA_MAX || len % 4) {
		NL_SET_ERR_MSG_ATTR(extack, data,
				    "Geneve option data must be 4 to 124 bytes, a multiple of 4");
		return -EINVAL;
	}
	if (opts->len + sizeof(*opt) + len > sizeof(opts->data)) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "Geneve options longer than 255 bytes");
		return -EINVAL;
	}

	opt = fl_geneve_opt(opts, opts->len);
	opt->opt_class = nla_get_be16(tb[TCA_FLOWER_KEY_ENC_OPT_GENEVE_CLASS]);
	opt->type = nla_get_u8(tb[TCA_FLOWER_KEY_ENC_OPT_GENEVE_TYPE]);
	opt->length = len / 4;
	memcpy(opt->opt_data, nla_data(data), len);
	opts->len += fl_geneve_opt_len(opt);
	return 0;
}

static int fl_set_vxlan_opt(struct nlattr **tb, void *opt, bool mask,
			    struct netlink_ext_ack *extack)
{
	struct vxlan_metadata *md = opt;
	struct nlattr *gbp = tb[TCA_FLOWER_KEY_ENC_OPT_VXLAN_GBP];

	if (!mask && !gbp) {
		NL_SET_ERR_MSG(extack, "Missing tunnel key vxlan option gbp");
		return -EINVAL;
	}
	md->gbp = gbp ? nla_get_u32(gbp) & VXLAN_GBP_MASK : U32_MAX;
	return 0;
}

static int fl_dump_vxlan_opt(struct sk_buff *skb, const void *opt)
{
	const struct vxlan_metadata *md = opt;

	return nla_put_u32(skb, TCA_FLOWER_KEY_ENC_OPT_VXLAN_GBP, md->gbp);
}

/* A mask's version, 1 when it gives none, says which fields it has */
static int fl_set_erspan_opt(struct nlattr **tb, void *opt, bool mask,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *ver = tb[TCA_FLOWER_KEY_ENC_OPT_ERSPAN_VER];
	struct nlattr *index = tb[TCA_FLOWER_KEY_ENC_OPT_ERSPAN_INDEX];
	struct nlattr *dir = tb[TCA_FLOWER_KEY_ENC_OPT_ERSPAN_DIR];
	struct nlattr *hwid = tb[TCA_FLOWER_KEY_ENC_OPT_ERSPAN_HWID];
	struct erspan_metadata *md = opt;

	if (!mask && !ver) {
		NL_SET_ERR_MSG(extack, "Missing tunnel key erspan option ver");
		return -EINVAL;
	}
	md->version = ver ? nla_get_u8(ver) : 1;
	switch (md->version) {
	case 1:
		if (!mask && !index) {
			NL_SET_ERR_MSG(extack,
				       "Missing tunnel key erspan option index");
			return -EINVAL;
		}
		md->u.index = index ? nla_get_be32(index) : htonl(U32_MAX);
		return 0;
	case 2:
		if (!mask && (!dir || !hwid)) {
			NL_SET_ERR_MSG(extack,
				       "Missing tunnel key erspan option dir or hwid");
			return -EINVAL;
		}
		md->u.md2.dir = dir ? nla_get_u8(dir) : 1;
		set_hwid(&md->u.md2, hwid ? nla_get_u8(hwid) : 0xff);
		return 0;
	}
	NL_SET_ERR_MSG(extack, "Tunnel key erspan option ver is incorrect");
	return -EINVAL;
}

static int fl_dump_erspan_opt(struct sk_buff *skb, const void *opt)
{
	const struct erspan_metadata *md = opt;

	if (nla_put_u8(skb, TCA_FLOWER_KEY_ENC_OPT_ERSPAN_VER, md->version))
		return -EMSGSIZE;
	if (md->version == 1)
		return nla_put_be32(skb, TCA_FLOWER_KEY_ENC_OPT_ERSPAN_INDEX,
				    md->u.index);
	if (md->version == 2)
		return nla_put_u8(skb, TCA_FLOWER_KEY_ENC_OPT_ERSPAN_DIR,
				  md->u.md2.dir) ?:
		       nla_put_u8(skb, TCA_FLOWER_KEY_ENC_OPT_ERSPAN_HWID,
				  get_hwid(&md->u.md2));
	return 0;
}

static int fl_set_gtp_opt(struct nlattr **tb, void *opt, bool mask,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *type = tb[TCA_FLOWER_KEY_ENC_OPT_GTP_PDU_TYPE];
	struct nlattr *qfi = tb[TCA_FLOWER_KEY_ENC_OPT_GTP_QFI];
	struct gtp_pdu_session_info *info = opt;

	if (!mask && (!type || !qfi)) {
		NL_SET_ERR_MSG(extack,
			       "Missing tunnel key gtp option pdu type or qfi");
		return -EINVAL;
	}
	info->pdu_type = type ? nla_get_u8(type) : 0xff;
	info->qfi = qfi ? nla_get_u8(qfi) : 0xff;
	return 0;
}

static int fl_dump_gtp_opt(struct sk_buff *skb, const void *opt)
{
	const struct gtp_pdu_session_info *info = opt;

	return nla_put_u8(skb, TCA_FLOWER_KEY_ENC_OPT_GTP_PDU_TYPE,
			  info->pdu_type) ?:
	       nla_put_u8(skb, TCA_FLOWER_KEY_ENC_OPT_GTP_QFI, info->qfi);
}

/* The tunnel option kinds besides Geneve's: one option of a fixed size.
 * Key and mask are kept as flower has always kept them (the option's
 * size and kind, as the mask's too), so drivers get the same rule.
 */
struct fl_tun_opt_kind {
	int (*set)(struct nlattr **tb, void *opt, bool mask,
		   struct netlink_ext_ack *extack);
	int (*dump)(struct sk_buff *skb, const void *opt);
	const struct nla_policy *policy;
	u16 maxtype;
	__be16 flag;		/* TUNNEL_*_OPT, the dst_opt_type */
	u8 len;			/* of the option in enc_opts.data */
	u16 attr;		/* TCA_FLOWER_KEY_ENC_OPTS_* */
};

#define FL_TUN_OPT_KIND(_attr, _name, _flag, _md) {			\
	.set = fl_set_##_name##_opt,					\
	.dump = fl_dump_##_name##_opt,					\
	.policy = fl_##_name##_opt_policy,				\
	.maxtype = TCA_FLOWER_KEY_ENC_OPT_##_attr##_MAX,		\
	.flag = _flag,							\
	.attr = TCA_FLOWER_KEY_ENC_OPTS_##_attr,			\
	.len = sizeof(struct _md),					\
}

static const struct fl_tun_opt_kind fl_tun_opt_kinds[] = {
	[TCA_FLOWER_KEY_ENC_OPTS_VXLAN] =
		FL_TUN_OPT_KIND(VXLAN, vxlan, TUNNEL_VXLAN_OPT,
				vxlan_metadata),
	[TCA_FLOWER_KEY_ENC_OPTS_ERSPAN] =
		FL_TUN_OPT_KIND(ERSPAN, erspan, TUNNEL_ERSPAN_OPT,
				erspan_metadata),
	[TCA_FLOWER_KEY_ENC_OPTS_GTP] =
		FL_TUN_OPT_KIND(GTP, gtp, TUNNEL_GTP_OPT,
				gtp_pdu_session_info),
};

static const struct fl_tun_opt_kind *fl_tun_opt_kind(int type)
{
	if (type < 0 || type >= ARRAY_SIZE(fl_tun_opt_kinds) ||
	    !fl_tun_opt_kinds[type].set)
		return NULL;
	return &fl_tun_opt_kinds[type];
}

static const struct fl_tun_opt_kind *fl_tun_opt_kind_of(__be16 flag)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(fl_tun_opt_kinds); i++)
		if (fl_tun_opt_kinds[i].set && fl_tun_opt_kinds[i].flag == flag)
			return &fl_tun_opt_kinds[i];
	return NULL;
}

/* An option of another kind in a list: refused, as it always has been */
static int fl_set_enc_opts_mixed(const struct nlattr *nla,
				 struct netlink_ext_ack *extack)
{
	switch (nla_type(nla)) {
	case TCA_FLOWER_KEY_ENC_OPTS_GENEVE:
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "Duplicate type for geneve options");
		break;
	case TCA_FLOWER_KEY_ENC_OPTS_VXLAN:
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "Duplicate type for vxlan options");
		break;
	case TCA_FLOWER_KEY_ENC_OPTS_ERSPAN:
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "Duplicate type for erspan options");
		break;
	case TCA_FLOWER_KEY_ENC_OPTS_GTP:
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "Duplicate type for gtp options");
		break;
	default:
		NL_SET_ERR_MSG_ATTR(extack, nla, "Unknown tunnel option type");
	}
	return -EINVAL;
}

/* A mask option of another kind than the key's */
static int fl_set_enc_opts_mask_kind(const struct fl_tun_opt_kind *kind,
				     const struct nlattr *mopt,
				     struct netlink_ext_ack *extack)
{
	switch (kind->attr) {
	case TCA_FLOWER_KEY_ENC_OPTS_VXLAN:
		NL_SET_ERR_MSG_ATTR(extack, mopt,
				    "Non-vxlan option type for mask");
		break;
	case TCA_FLOWER_KEY_ENC_OPTS_ERSPAN:
		NL_SET_ERR_MSG_ATTR(extack, mopt,
				    "Non-erspan option type for mask");
		break;
	default:	/* TCA_FLOWER_KEY_ENC_OPTS_GTP, the last kind */
		NL_SET_ERR_MSG_ATTR(extack, mopt,
				    "Non-gtp option type for mask");
	}
	return -EINVAL;
}

/* ENC_OPTS or ENC_OPTS_MASK: a list of Geneve options */
static int fl_set_enc_opts(const struct nlattr *list,
			   struct flow_dissector_key_enc_opts *opts,
			   struct netlink_ext_ack *extack)
{
	const struct nlattr *nla;
	int rem, err;

	nla_for_each_nested(nla, list, rem) {
		if (nla_type(nla) != TCA_FLOWER_KEY_ENC_OPTS_GENEVE)
			return fl_set_enc_opts_mixed(nla, extack);
		err = fl_set_geneve_opt(nla, opts, extack);
		if (err)
			return err;
	}
	if (rem || !opts->len) {
		NL_SET_ERR_MSG_ATTR(extack, list,
				    "Malformed or empty tunnel options");
		return -EINVAL;
	}
	return 0;
}

/* A mask's options must have the key's lengths; they then count exactly */
static int
fl_set_enc_opts_mask_lengths(struct flow_dissector_key_enc_opts *key,
			     struct flow_dissector_key_enc_opts *mask)
{
	unsigned int off = 0;

	if (key->len != mask->len)
		return -EINVAL;
	while (off < key->len) {
		struct geneve_opt *kopt = fl_geneve_opt(key, off);
		struct geneve_opt *mopt = fl_geneve_opt(mask, off);

		if (kopt->length != mopt->length)
			return -EINVAL;
		off += fl_geneve_opt_len(kopt);
		mopt->length = 0x1f;	/* all 5 bits */
	}
	return 0;
}

/* No mask given: every bit of class, type and data counts, as with the
 * all-ones mask tc sends.  The lengths stay the key's (set to all five
 * bits by fl_set_enc_opts_mask_lengths()).
 */
static void
fl_set_enc_opts_mask_exact(const struct flow_dissector_key_enc_opts *key,
			   struct flow_dissector_key_enc_opts *mask)
{
	struct geneve_opt *opt;
	unsigned int off;

	*mask = *key;
	for (off = 0; off < mask->len; off += fl_geneve_opt_len(opt)) {
		opt = fl_geneve_opt(mask, off);
		opt->opt_class = htons(0xffff);
		opt->type = 0xff;
		memset(opt->opt_data, 0xff, opt->length * 4);
	}
}

/* Geneve options: the packet's options are exactly these, in this order
 * (their lengths count), with the mask's bits of class, type and data.
 */
static int fl_set_key_geneve_opts(struct nlattr *val, struct nlattr *msk,
				  struct fl_flow_key *key,
				  struct fl_flow_key *mask,
				  struct netlink_ext_ack *extack)
{
	int err;

	err = fl_set_enc_opts(val, &key->enc_opts, extack);
	if (err)
		return err;
	if (msk) {
		err = fl_set_enc_opts(msk, &mask->enc_opts, extack);
		if (err)
			return err;
	} else {
		fl_set_enc_opts_mask_exact(&key->enc_opts, &mask->enc_opts);
	}
	if (fl_set_enc_opts_mask_lengths(&key->enc_opts, &mask->enc_opts)) {
		NL_SET_ERR_MSG_ATTR(extack, msk,
				    "Tunnel options mask does not have the options' lengths");
		return -EINVAL;
	}

	key->enc_opts.dst_opt_type = TUNNEL_GENEVE_OPT;
	mask->enc_opts.dst_opt_type = TUNNEL_OPTIONS_PRESENT;
	mask->enc_opts.len = 0xff;
	return 0;
}

/* One option of @kind from @nla, or a mask of all its fields if NULL */
static int fl_set_tun_opt(const struct fl_tun_opt_kind *kind,
			  const struct nlattr *nla, void *opt, bool mask,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCA_FLOWER_KEY_ENC_OPT_ERSPAN_MAX + 1] = {};
	int err;

	BUILD_BUG_ON(ARRAY_SIZE(tb) <= TCA_FLOWER_KEY_ENC_OPT_VXLAN_MAX ||
		     ARRAY_SIZE(tb) <= TCA_FLOWER_KEY_ENC_OPT_GTP_MAX);
	if (nla) {
		err = __nla_parse(tb, kind->maxtype, nla_data(nla),
				  nla_len(nla), kind->policy, FL_NLA_VALIDATE,
				  extack);
		if (err)
			return err;
	}
	return kind->set(tb, opt, mask, extack);
}

/* A vxlan, erspan or gtp option, the list's only one; the mask's first
 * option, if any, is of the same kind, and fields it lacks count whole.
 */
static int fl_set_key_tun_opt(const struct fl_tun_opt_kind *kind,
			      struct nlattr *val, struct nlattr *msk,
			      struct fl_flow_key *key, struct fl_flow_key *mask,
			      struct netlink_ext_ack *extack)
{
	const struct nlattr *opt = nla_data(val), *mopt = NULL;
	int rem = nla_len(val);
	int err;

	err = fl_set_tun_opt(kind, opt, key->enc_opts.data, false, extack);
	if (err)
		return err;
	opt = nla_next(opt, &rem);
	if (nla_ok(opt, rem))
		return fl_set_enc_opts_mixed(opt, extack);

	if (msk) {
		mopt = nla_data(msk);
		if (!nla_ok(mopt, nla_len(msk))) {
			NL_SET_ERR_MSG_ATTR(extack, msk,
					    "Invalid nested attribute for masks");
			return -EINVAL;
		}
		if (nla_type(mopt) != kind->attr)
			return fl_set_enc_opts_mask_kind(kind, mopt, extack);
	}
	err = fl_set_tun_opt(kind, mopt, mask->enc_opts.data, true, extack);
	if (err)
		return err;

	key->enc_opts.len = kind->len;
	mask->enc_opts.len = kind->len;
	key->enc_opts.dst_opt_type = kind->flag;
	mask->enc_opts.dst_opt_type = kind->flag;
	return 0;
}

static int fl_set_key_enc_opts(struct nlattr **tb, struct fl_flow_key *key,
			       struct fl_flow_key *mask,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *val = tb[TCA_FLOWER_KEY_ENC_OPTS];
	struct nlattr *msk = tb[TCA_FLOWER_KEY_ENC_OPTS_MASK];
	const struct fl_tun_opt_kind *kind = NULL;
	const struct nlattr *first;

	if (!val) {
		if (msk)
			fl_warn(extack, "Mask given without its key: ignored");
		return 0;
	}

	first = nla_data(val);
	if (nla_ok(first, nla_len(val)))
		kind = fl_tun_opt_kind(nla_type(first));
	if (kind)
		return fl_set_key_tun_opt(kind, val, msk, key, mask, extack);
	return fl_set_key_geneve_opts(val, msk, key, mask, extack);
}

/* Every ct_state flag the uAPI defines */
#define FL_CT_FLAGS	(TCA_FLOWER_KEY_CT_FLAGS_NEW |			\
			 TCA_FLOWER_KEY_CT_FLAGS_ESTABLISHED |		\
			 TCA_FLOWER_KEY_CT_FLAGS_RELATED |		\
			 TCA_FLOWER_KEY_CT_FLAGS_TRACKED |		\
			 TCA_FLOWER_KEY_CT_FLAGS_INVALID |		\
			 TCA_FLOWER_KEY_CT_FLAGS_REPLY)

/* ct_state flags that no packet has together: such a filter never matches */
static int fl_ct_state_error(u16 state, const struct nlattr *nla,
			     struct netlink_ext_ack *extack)
{
	const u16 trk = TCA_FLOWER_KEY_CT_FLAGS_TRACKED;

	if (state && !(state & trk)) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "ct_state flags other than trk need +trk");
		return -EINVAL;
	}
	if ((state & TCA_FLOWER_KEY_CT_FLAGS_NEW) &&
	    (state & (TCA_FLOWER_KEY_CT_FLAGS_ESTABLISHED |
		      TCA_FLOWER_KEY_CT_FLAGS_REPLY))) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "ct_state +new excludes +est and +rpl");
		return -EINVAL;
	}
	if ((state & TCA_FLOWER_KEY_CT_FLAGS_INVALID) &&
	    (state & ~(trk | TCA_FLOWER_KEY_CT_FLAGS_INVALID))) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "ct_state +inv goes with +trk alone");
		return -EINVAL;
	}
	return 0;
}

/* A conntrack key this kernel does not fill: -EOPNOTSUPP, in the order
 * of the keys' attributes
 */
static int fl_check_ct_built(struct nlattr **tb,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *nla;

	nla = tb[TCA_FLOWER_KEY_CT_STATE];
	if (nla && !IS_ENABLED(CONFIG_NF_CONNTRACK)) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "ct_state needs conntrack (CONFIG_NF_CONNTRACK)");
		return -EOPNOTSUPP;
	}
	nla = tb[TCA_FLOWER_KEY_CT_ZONE];
	if (nla && !IS_ENABLED(CONFIG_NF_CONNTRACK_ZONES)) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "ct_zone needs conntrack zones (CONFIG_NF_CONNTRACK_ZONES)");
		return -EOPNOTSUPP;
	}
	nla = tb[TCA_FLOWER_KEY_CT_MARK];
	if (nla && !IS_ENABLED(CONFIG_NF_CONNTRACK_MARK)) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "ct_mark needs conntrack marks (CONFIG_NF_CONNTRACK_MARK)");
		return -EOPNOTSUPP;
	}
	nla = tb[TCA_FLOWER_KEY_CT_LABELS];
	if (nla && !IS_ENABLED(CONFIG_NF_CONNTRACK_LABELS)) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "ct_label needs conntrack labels (CONFIG_NF_CONNTRACK_LABELS)");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* The conntrack keys this kernel fills, and ct_state flags that can match */
static int fl_check_ct(struct nlattr **tb, const struct fl_flow_key *key,
		       const struct fl_flow_key *mask,
		       struct netlink_ext_ack *extack)
{
	int i, err;

	err = fl_check_ct_built(tb, extack);
	if (err)
		return err;

	/* A bit the uAPI does not define is refused in the value and in
	 * the mask alike, not dropped when the other one clears it.
	 */
	for (i = TCA_FLOWER_KEY_CT_STATE;
	     i <= TCA_FLOWER_KEY_CT_STATE_MASK; i++) {
		if (tb[i] && nla_get_u16(tb[i]) & ~FL_CT_FLAGS) {
			NL_SET_ERR_MSG_ATTR(extack, tb[i],
					    "Unknown ct_state flags");
			return -EINVAL;
		}
	}

	return fl_ct_state_error(key->ct.ct_state & mask->ct.ct_state,
				 tb[TCA_FLOWER_KEY_CT_STATE], extack);
}

static int fl_set_key(struct net *net, struct nlattr **tb, __be16 protocol,
		      struct fl_flow_key *key, struct fl_flow_key *mask,
		      struct netlink_ext_ack *extack)
{
	int i, err;

	err = fl_set_key_indev(net, tb, key, mask, extack) ?:
	      fl_set_key_eth_type(tb, protocol, key, mask, extack) ?:
	      fl_set_key_ip_flags(tb, key, mask, extack) ?:
	      fl_set_key_mpls(tb, key, mask, extack) ?:
	      fl_set_key_enc_opts(tb, key, mask, extack);
	if (err)
		return err;

	fl_set_key_enc_control(tb, key, mask, extack);
	fl_set_key_addr_type(tb, key, mask, extack);
	for (i = 0; i < ARRAY_SIZE(fl_keys); i++)
		fl_set_key_val(tb, &fl_keys[i], key, mask, extack);
	fl_warn_tags(tb, key, mask, extack);
	fl_warn_tcp_flags(mask, extack);
	return fl_check_port_range(tb, key, mask, extack) ?:
	       fl_check_ct(tb, key, mask, extack);
}

/* A filter and its mask from the request, not yet in any table.  No lock
 * is held: this is the part of a change that other requests on the
 * instance need not wait for.
 */
static struct cls_fl_filter *fl_filter_create(struct net *net,
					      struct tcf_proto *tp,
					      unsigned long base,
					      struct nlattr **tb,
					      struct nlattr *rate,
					      struct fl_flow_mask *mask,
					      u32 flags,
					      struct netlink_ext_ack *extack)
{
	struct cls_fl_filter *f;
	int err;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return ERR_PTR(-ENOBUFS);
	INIT_LIST_HEAD(&f->hw_list);

	err = tcf_exts_init(&f->exts, net, TCA_FLOWER_ACT, 0);
	if (err)
		goto err_discard;

	err = fl_set_flags(tb, &f->flags, extack);
	if (err)
		goto err_discard;

	err = fl_set_key(net, tb, tp->protocol, &f->key, &mask->key, extack);
	if (err)
		goto err_discard;

	err = tcf_exts_validate_ex(net, tp, tb, rate, &f->exts, flags,
				   f->flags, extack);
	if (err < 0)
		goto err_discard;

	/* Last, as nothing after it fails: binding looks the class up */
	if (tb[TCA_FLOWER_CLASSID]) {
		f->res.classid = nla_get_u32(tb[TCA_FLOWER_CLASSID]);
		if (flags & TCA_ACT_FLAGS_NO_RTNL)
			rtnl_lock();
		tcf_bind_filter(tp, &f->res, base);
		if (flags & TCA_ACT_FLAGS_NO_RTNL)
			rtnl_unlock();
	}
	refcount_set(&f->refs, 1);
	return f;

err_discard:
	fl_filter_discard(tp, f);
	return ERR_PTR(err);
}

/* The longs of the key @mask is not zero in (mask->words), and the range
 * from the first of them to the last
 */
static void fl_mask_update_range(struct fl_flow_mask *mask)
{
	const unsigned long *longs = (const unsigned long *)&mask->key;
	unsigned int i;

	BUILD_BUG_ON(FL_KEY_LONGS - 1 > U8_MAX);
	mask->nwords = 0;
	for (i = 0; i < FL_KEY_LONGS; i++)
		if (longs[i])
			mask->words[mask->nwords++] = i;
	/* Matches everything: hash one all-zero long */
	if (!mask->nwords)
		mask->words[mask->nwords++] = 0;
	mask->range.start = mask->words[0] * sizeof(long);
	mask->range.end = (mask->words[mask->nwords - 1] + 1) * sizeof(long);
}

static bool fl_dissector_key_used(const struct fl_flow_mask *mask,
				  const struct fl_dissector_key *dk)
{
	switch (dk->id) {
	case FLOW_DISSECTOR_KEY_CONTROL:
	case FLOW_DISSECTOR_KEY_BASIC:
		return true;	/* the dissector itself needs them */
	case FLOW_DISSECTOR_KEY_IPV4_ADDRS:
	case FLOW_DISSECTOR_KEY_IPV6_ADDRS:
		/* Even with an all-zero address mask, addr_type must say
		 * whether the packet had an address of the family.
		 */
		if (mask->key.control.addr_type)
			return true;
		break;
	default:
		break;
	}
	return memchr_inv((const u8 *)&mask->key + dk->offset, 0, dk->len);
}

/* The dissector keys @mask uses.  The bytes of its range are theirs */
static void fl_mask_init_keys(struct fl_flow_mask *mask)
{
	unsigned int i;

	mask->used = 0;
	for (i = 0; i < ARRAY_SIZE(fl_dissector_keys); i++)
		if (fl_dissector_key_used(mask, &fl_dissector_keys[i]))
			mask->used |= BIT(i);
}

/* Under head->lock: the keys a set keeps when @mask, or none, leaves it */
static u32 fl_keys_used_without(const struct cls_fl_head *head,
				const struct fl_flow_mask *mask)
{
	u32 used = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fl_dissector_keys); i++)
		if (head->key_users[i] > (mask && mask->used & BIT(i)))
			used |= BIT(i);
	return used;
}

/* Under head->lock: @mask joins (@n 1) or leaves (-1) the set */
static void fl_keys_count(struct cls_fl_head *head,
			  const struct fl_flow_mask *mask, int n)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fl_dissector_keys); i++)
		if (mask->used & BIT(i))
			head->key_users[i] += n;
}

/* Only for the bench and difftest: with false, an instance's next change
 * after it is set makes the instance dissect every packet with the
 * dissector (both paths from one module).
 */
static bool l3l4_dissect = true;
module_param(l3l4_dissect, bool, 0644);
MODULE_PARM_DESC(l3l4_dissect, "Dissect IPv4/IPv6 keys without the flow dissector (bench)");

/* The dissector of @used, the union of the masks' keys; classify clears
 * the key up to the end of the last of them
 */
static void fl_masks_init_dissector(struct fl_masks *masks, u32 used)
{
	struct flow_dissector_key keys[ARRAY_SIZE(fl_dissector_keys)];
	/* fl_dissect() writes the ingress ifindex, which is no dissector
	 * key: the cleared bytes, which the cache's key is, hold it too
	 */
	unsigned int i, cnt = 0, end = offsetofend(struct fl_flow_key, meta);
	bool l3l4 = READ_ONCE(l3l4_dissect);

	BUILD_BUG_ON(ARRAY_SIZE(fl_dissector_keys) >
		     ARRAY_SIZE(((struct cls_fl_head *)0)->key_users));
	masks->used = used;
	for (i = 0; i < ARRAY_SIZE(fl_dissector_keys); i++) {
		const struct fl_dissector_key *dk = &fl_dissector_keys[i];

		if (!(used & BIT(i)))
			continue;
		keys[cnt].key_id = dk->id;
		keys[cnt].offset = dk->offset;
		cnt++;
		l3l4 &= dk->l3l4;
		end = max_t(unsigned int, end, dk->offset + dk->len);
	}

	skb_flow_dissector_init(&masks->dissector, keys, cnt);
	masks->clear_end = roundup(end, sizeof(long));
	masks->l3l4 = l3l4;
	masks->tunnel = dissector_uses_key(&masks->dissector,
					   FLOW_DISSECTOR_KEY_ENC_CONTROL);
	masks->ct = dissector_uses_key(&masks->dissector,
				       FLOW_DISSECTOR_KEY_CT);
	masks->hash = dissector_uses_key(&masks->dissector,
					 FLOW_DISSECTOR_KEY_HASH);
	masks->metadata = masks->tunnel || masks->ct || masks->hash;
	masks->ranges = dissector_uses_key(&masks->dissector,
					   FLOW_DISSECTOR_KEY_PORTS_RANGE);
	masks->frag_l4 = dissector_uses_key(&masks->dissector,
					    FLOW_DISSECTOR_KEY_ICMP) ||
			 dissector_uses_key(&masks->dissector,
					    FLOW_DISSECTOR_KEY_TCP) ||
			 dissector_uses_key(&masks->dissector,
					    FLOW_DISSECTOR_KEY_L2TPV3);
}

/* A new set: @old's masks in their order but @drop, then @add.  Never
 * empty (an instance without masks has no set); NULL when out of memory.
 * It has room for as many masks again, for fl_masks_append().
 */
static struct fl_masks *fl_masks_create(const struct cls_fl_head *head,
					const struct fl_masks *old,
					struct fl_flow_mask *add,
					const struct fl_flow_mask *drop)
{
	unsigned int i, n = old ? old->n : 0;
	unsigned int room = max(8U, 2 * (n + 1));
	struct fl_masks *masks;

	/* Past some 2k masks an order-0 page is not enough.  mask[] is
	 * written up to n: only the rest is cleared.
	 */
	masks = kvmalloc(struct_size(masks, mask, room), GFP_KERNEL);
	if (!masks)
		return NULL;
	memset(masks, 0, sizeof(*masks));
	masks->room = room;
	for (i = 0; i < n; i++)
		if (old->mask[i] != drop)
			masks->mask[masks->n++] = old->mask[i];
	if (add)
		masks->mask[masks->n++] = add;
	fl_masks_init_dissector(masks, fl_keys_used_without(head, drop) |
				       (add ? add->used : 0));
	return masks;
}

static struct fl_masks *fl_masks_locked(struct cls_fl_head *head)
{
	return rcu_dereference_protected(head->masks,
					 lockdep_is_held(&head->lock));
}

/* Whether @mask can join @masks in place: there is room, and the set's
 * dissector and cleared bytes cover its keys
 */
static bool fl_masks_fit(const struct fl_masks *masks,
			 const struct fl_flow_mask *mask)
{
	return masks && masks->n < masks->room &&
	       !(mask->used & ~masks->used);
}

/* Under head->lock, for a mask that fits */
static void fl_masks_append(struct fl_masks *masks, struct fl_flow_mask *mask)
{
	masks->mask[masks->n] = mask;
	/* The mask, ready, and mask[n] before n: fl_classify() acquires n */
	smp_store_release(&masks->n, masks->n + 1);
}

/* Under head->lock.  rcu_assign_pointer() orders the initialisation of
 * @masks, and of a mask new in it, before the pointer that classify
 * follows.
 */
static void fl_masks_publish(struct cls_fl_head *head, struct fl_masks *masks)
{
	struct fl_masks *old = fl_masks_locked(head);

	rcu_assign_pointer(head->masks, masks);
	if (old)
		kvfree_rcu(old, rcu);
}

/* Only for the bench: a change of an instance after it is set to false
 * takes the instance's cache away (cache-on and cache-off costs from one
 * module).
 */
static bool flow_cache = true;
module_param(flow_cache, bool, 0644);
MODULE_PARM_DESC(flow_cache, "Flow cache for instances of several masks (bench)");

/* A cache of @span key bytes, every entry empty, generations from @gen */
static struct fl_cache *fl_cache_create(unsigned int span, u32 gen)
{
	unsigned int stride = sizeof(struct fl_cache_entry) + span;
	unsigned int n = max(1U, FL_CACHE_SIZE / stride);
	struct fl_cache *cache;

	cache = kzalloc(sizeof(*cache), GFP_KERNEL);
	if (!cache)
		return NULL;
	n = rounddown_pow_of_two(n);
	cache->entries = __alloc_percpu(n * stride,
					__alignof__(struct fl_cache_entry));
	if (!cache->entries) {
		kfree(cache);
		return NULL;
	}
	cache->gen = gen;
	cache->seed = get_random_u32();
	cache->span = span;
	cache->stride = stride;
	cache->slots = n - 1;
	return cache;
}

/* Under head->lock, after every change that classify can see and before
 * anything it took away is freed: bumps the generation, or publishes the
 * cache the instance's masks now want (none, one of another span, or a
 * fresh one instead of a wrap).
 */
static void fl_cache_changed(struct cls_fl_head *head)
{
	struct fl_cache *cache = rcu_dereference_protected(head->cache,
						lockdep_is_held(&head->lock));
	struct fl_masks *masks = fl_masks_locked(head);
	struct fl_cache *fresh = NULL;
	unsigned int span = 0;

	if (masks && masks->n >= FL_CACHE_MIN_MASKS && READ_ONCE(flow_cache))
		span = masks->clear_end;
	if (cache && cache->span == span && cache->gen != U32_MAX) {
		/* After the change: classify acquires it before its walk */
		smp_store_release(&cache->gen, cache->gen + 1);
		return;
	}
	if (span)
		fresh = fl_cache_create(span, cache ? 1 : FL_CACHE_GEN_INIT);
	rcu_assign_pointer(head->cache, fresh);
	if (cache)
		call_rcu(&cache->rcu, fl_cache_free_rcu);
}

/* Readies @mask and its table, before a set that holds it is published */
static int fl_mask_init(struct fl_flow_mask *mask)
{
	fl_mask_update_range(mask);
	fl_mask_init_keys(mask);
	INIT_LIST_HEAD(&mask->range_filters);
	mask->ranges = memchr_inv(&mask->key.tp_range, 0,
				  sizeof(mask->key.tp_range));
	refcount_set(&mask->refs, 1);
	mask->ht_params = fl_table_params;
	mask->ht_params.key_len = fl_mask_range(mask);
	return rhashtable_init(&mask->ht, &mask->ht_params);
}

/* Under head->lock: the instance's mask equal to @mask, if it has one */
static struct fl_flow_mask *fl_mask_find(struct cls_fl_head *head,
					 const struct fl_flow_mask *mask)
{
	return rhashtable_lookup_fast(&head->mask_ht, &mask->key,
				      fl_mask_ht_params);
}

/* Under head->lock: @mask's table holds one filter fewer.  An emptied
 * mask leaves the set; should the smaller set not be allocated, the mask
 * stays in it, empty, which classify does not mind, until it empties
 * again or the instance goes.
 */
static void fl_mask_put(struct cls_fl_head *head, struct fl_flow_mask *mask)
{
	struct fl_masks *masks = fl_masks_locked(head);
	struct fl_masks *rest = NULL;

	if (--mask->filters)
		return;
	if (masks->n > 1) {
		rest = fl_masks_create(head, masks, NULL, mask);
		if (!rest)
			return;
	}
	rhashtable_remove_fast(&head->mask_ht, &mask->ht_node,
			       fl_mask_ht_params);
	fl_keys_count(head, mask, -1);
	fl_masks_publish(head, rest);
	tcf_queue_work(&mask->rwork, fl_mask_release_work);
}

/* A chain template names the keys its filters may use, and every bit of
 * a filter's mask must be one of the template's.
 */
static int fl_check_tmplt(const struct tcf_proto *tp,
			  const struct fl_flow_mask *mask,
			  struct netlink_ext_ack *extack)
{
	const struct fl_tmplt *tmplt = tp->chain->tmplt_priv;
	const unsigned long *m = (const unsigned long *)&mask->key;
	const unsigned long *t;
	unsigned int i;

	if (!tmplt)
		return 0;
	t = (const unsigned long *)&tmplt->mask;
	for (i = 0; i < sizeof(mask->key) / sizeof(long); i++) {
		if (m[i] & ~t[i]) {
			NL_SET_ERR_MSG(extack,
				       "Mask does not fit the template");
			return -EINVAL;
		}
	}
	return 0;
}

/* Under head->lock.  A new filter's handle is reserved with no filter
 * behind it: fl_get() and fl_walk() see the filter only once it is in its
 * table (idr_replace() in fl_insert()).
 */
static int fl_handle_assign(struct cls_fl_head *head,
			    struct cls_fl_filter *fold,
			    struct cls_fl_filter *fnew, u32 handle,
			    struct netlink_ext_ack *extack)
{
	u32 id = handle ?: 1, max = handle ?: INT_MAX;
	int err;

	if (fold) {
		fnew->handle = fold->handle;
		return 0;
	}

	err = idr_alloc_u32(&head->handle_idr, NULL, &id, max, GFP_KERNEL);
	/* cls_api found no filter with this handle, but a request running
	 * in parallel has added one since: replayed, this request finds it.
	 */
	if (err == -ENOSPC && handle)
		return -EAGAIN;
	if (err) {
		NL_SET_ERR_MSG(extack, "No free flower filter handle");
		return err;
	}
	fnew->handle = id;
	return 0;
}

/* A replace whose filter keeps mask and masked key swaps in place */
static bool fl_swaps(const struct cls_fl_filter *fold,
		     const struct cls_fl_filter *fnew)
{
	const struct fl_flow_mask *mask = fnew->mask;

	return fold && fold->mask == mask &&
	       !memcmp(fl_key_start(&fold->mkey, mask),
		       fl_key_start(&fnew->mkey, mask), fl_mask_range(mask));
}

static int fl_ht_insert(struct cls_fl_filter *fold, struct cls_fl_filter *fnew,
			bool swap, struct netlink_ext_ack *extack)
{
	struct fl_flow_mask *mask = fnew->mask;
	int err;

	/* Lookups find one of the two at any time */
	if (swap)
		return rhashtable_replace_fast(&mask->ht, &fold->ht_node,
					       &fnew->ht_node, mask->ht_params);

	err = rhashtable_lookup_insert_fast(&mask->ht, &fnew->ht_node,
					    mask->ht_params);
	if (err == -EEXIST)
		NL_SET_ERR_MSG(extack,
			       "A filter with the same key exists in this flower instance");
	return err;
}

/* Under head->lock, after a change to @mask's range walk: a new index
 * at once for a small mask, else the walk until the work has built one
 * (see the top)
 */
static void fl_range_changed(struct cls_fl_head *head,
			     struct fl_flow_mask *mask)
{
	if (mask->filters <= FL_RANGE_SYNC_MAX) {
		fl_range_index_build(head, mask);
		return;
	}
	fl_range_index_set(head, mask, NULL);
	mask->range_stale = true;
	queue_delayed_work(system_wq, &head->range_work,
			   max_t(unsigned long, FL_RANGE_INDEX_DELAY,
				 nsecs_to_jiffies(FL_RANGE_BUILD_SHARE *
						  head->range_build_ns)));
}

/* Under head->lock: @f leaves the instance (the caller has taken it out
 * of the IDR) and its table, unless a replace has swapped it out already.
 * The instance's reference is the caller's to drop (fl_filter_release()).
 */
static void fl_filter_remove(struct cls_fl_head *head, struct cls_fl_filter *f,
			     bool in_table)
{
	if (in_table) {
		rhashtable_remove_fast(&f->mask->ht, &f->ht_node,
				       f->mask->ht_params);
		if (f->mask->ranges) {
			list_del_rcu(&f->range_node);
			fl_range_changed(head, f->mask);
		}
	}
	WRITE_ONCE(f->deleted, true);	/* fl_hw_next() reads it unlocked */
	fl_mask_put(head, f->mask);
	fl_cache_changed(head);
}

/* Under head->lock: @fnew joins the walk of a mask with port ranges, in
 * @fold's place if it replaces a filter of the mask (as flower has always
 * done), else last.  Unless @swap, @fold leaves the walk later, in
 * fl_filter_remove().
 */
static void fl_range_link(struct cls_fl_head *head, struct cls_fl_filter *fold,
			  struct cls_fl_filter *fnew, bool swap)
{
	struct fl_flow_mask *mask = fnew->mask;

	if (!mask->ranges)
		return;
	if (swap)
		list_replace_rcu(&fold->range_node, &fnew->range_node);
	else if (fold && fold->mask == mask)
		list_add_rcu(&fnew->range_node, &fold->range_node);
	else
		list_add_tail_rcu(&fnew->range_node, &mask->range_filters);
	fl_range_changed(head, mask);
}

/* Under head->lock: makes @fnew visible, in place of @fold if there is
 * one.  @mask is the request's: an equal mask of the instance is taken
 * instead and @mask freed, or @mask joins the set.  On error @mask is
 * freed and @fnew is left as it came, visible to nobody.
 */
static int fl_insert(struct tcf_proto *tp, struct cls_fl_filter *fold,
		     struct cls_fl_filter *fnew, struct fl_flow_mask *mask,
		     u32 handle, struct netlink_ext_ack *extack)
{
	struct cls_fl_head *head = fl_head(tp);
	struct fl_masks *masks = fl_masks_locked(head);
	struct fl_flow_mask *found;
	struct fl_masks *grown = NULL;
	bool append = false;
	bool swap;
	int err;

	/* The instance, or the filter to replace, went meanwhile: cls_api
	 * replays the request.
	 */
	if (READ_ONCE(tp->deleting) || (fold && fold->deleted)) {
		kfree(mask);
		return -EAGAIN;
	}

	found = fl_mask_find(head, mask);
	if (found) {
		kfree(mask);
		mask = found;
	} else {
		err = fl_mask_init(mask);
		if (err)
			goto err_mask;
		err = rhashtable_insert_fast(&head->mask_ht, &mask->ht_node,
					     fl_mask_ht_params);
		if (err)
			goto err_ht;
		append = fl_masks_fit(masks, mask);
		if (!append)
			grown = fl_masks_create(head, masks, mask, NULL);
		if (!append && !grown) {
			err = -ENOBUFS;
			goto err_mask_ht;
		}
	}
	fnew->mask = mask;
	fl_set_masked_key(&fnew->mkey, &fnew->key, mask);
	fnew->lkey.key = &fnew->mkey;
	fnew->lkey.mask = mask;

	err = fl_handle_assign(head, fold, fnew, handle, extack);
	if (err)
		goto err_grown;

	swap = fl_swaps(fold, fnew);
	err = fl_ht_insert(fold, fnew, swap, extack);
	if (err)
		goto err_handle;

	/* Nothing fails from here on */
	fl_range_link(head, fold, fnew, swap);
	refcount_inc(&mask->refs);
	mask->filters++;
	if (!found)
		fl_keys_count(head, mask, 1);
	if (grown)
		fl_masks_publish(head, grown);
	else if (append)
		fl_masks_append(masks, mask);
	idr_replace(&head->handle_idr, fnew, fnew->handle);
	/* One that moves to another mask leaves its own later, in
	 * fl_filter_retire(); deleted, it is the caller's alone already.
	 */
	if (fold && fold->mask != mask)
		WRITE_ONCE(fold->deleted, true);
	else if (fold)
		fl_filter_remove(head, fold, !swap);
	fl_cache_changed(head);
	refcount_inc(&fnew->refs);	/* the caller's, in *arg */
	return 0;

err_handle:
	if (!fold)
		idr_remove(&head->handle_idr, fnew->handle);
err_grown:
	fnew->mask = NULL;
	kvfree(grown);
err_mask_ht:
	if (!found)
		rhashtable_remove_fast(&head->mask_ht, &mask->ht_node,
				       fl_mask_ht_params);
err_ht:
	if (!found)
		rhashtable_destroy(&mask->ht);
err_mask:
	if (!found)
		kfree(mask);
	return err;
}

/* @f, which a replace moved to another mask, leaves its own a grace
 * period after the filter that replaced it became visible.  Until then
 * both are in their tables, so a packet that both match finds one of
 * them whatever set of masks classify loaded and in whichever order it
 * tries the two masks (a classify that never saw the new filter's mask
 * began before the grace period did).  Meanwhile the old key stays taken
 * in its mask: a replace back to it in parallel is refused as a
 * duplicate.
 */
static void fl_filter_retire(struct tcf_proto *tp, struct cls_fl_filter *f)
{
	struct cls_fl_head *head = fl_head(tp);

	synchronize_rcu();
	mutex_lock(&head->lock);
	fl_filter_remove(head, f, true);
	mutex_unlock(&head->lock);
}

/* Software first, then drivers: see the top */
static int fl_insert_sw(struct tcf_proto *tp, struct cls_fl_filter *fold,
			struct cls_fl_filter *fnew, struct fl_flow_mask *mask,
			u32 handle, bool rtnl_held,
			struct netlink_ext_ack *extack)
{
	struct cls_fl_head *head = fl_head(tp);
	bool deleted;
	int err;

	mutex_lock(&head->lock);
	err = fl_insert(tp, fold, fnew, mask, handle, extack);
	mutex_unlock(&head->lock);
	if (err)
		return err;
	if (tc_skip_hw(fnew->flags))
		goto out;

	/* Drivers' errors are not the request's: it is in software */
	fl_hw_replace_filter(tp, fnew, &fnew->mask->key, rtnl_held, extack);
	/* A delete that ran meanwhile took the rule from no driver */
	mutex_lock(&head->lock);
	deleted = fnew->deleted;
	mutex_unlock(&head->lock);
	if (deleted)
		fl_hw_destroy_filter(tp, fnew, rtnl_held, NULL);
out:
	fl_hw_flags_update(tp, fnew);
	return 0;
}

/* Drivers first, under RTNL: see the top */
static int fl_insert_hw(struct tcf_proto *tp, struct cls_fl_filter *fold,
			struct cls_fl_filter *fnew, struct fl_flow_mask *mask,
			u32 handle, bool rtnl_held,
			struct netlink_ext_ack *extack)
{
	struct cls_fl_head *head = fl_head(tp);
	int err;

	if (!rtnl_held)
		rtnl_lock();
	/* What fl_insert() makes of the request's mask, or of an equal one */
	fl_mask_update_range(mask);
	fl_set_masked_key(&fnew->mkey, &fnew->key, mask);
	err = fl_hw_replace_filter(tp, fnew, &mask->key, true, extack);
	if (err) {
		kfree(mask);
		goto out;
	}

	mutex_lock(&head->lock);
	err = fl_insert(tp, fold, fnew, mask, handle, extack);
	mutex_unlock(&head->lock);
	if (err)
		fl_hw_destroy_filter(tp, fnew, true, NULL);
	else
		fl_hw_flags_update(tp, fnew);
out:
	if (!rtnl_held)
		rtnl_unlock();
	return err;
}

/* Adds a filter, or replaces @*arg, from already validated attributes */
static int fl_change_filter(struct net *net, struct tcf_proto *tp,
			    unsigned long base, u32 handle, struct nlattr **tb,
			    struct nlattr *rate, void **arg, u32 flags,
			    struct netlink_ext_ack *extack)
{
	bool rtnl_held = !(flags & TCA_ACT_FLAGS_NO_RTNL);
	struct cls_fl_filter *fold = *arg;
	struct fl_flow_mask *mask;
	struct cls_fl_filter *fnew;
	int err;

	if (fold && handle && fold->handle != handle) {
		NL_SET_ERR_MSG(extack,
			       "Handle does not match the filter to replace");
		return -EINVAL;
	}

	mask = kzalloc(sizeof(*mask), GFP_KERNEL);
	if (!mask)
		return -ENOBUFS;

	fnew = fl_filter_create(net, tp, base, tb, rate, mask, flags, extack);
	if (IS_ERR(fnew)) {
		kfree(mask);
		return PTR_ERR(fnew);
	}

	err = fl_check_tmplt(tp, mask, extack);
	if (err)
		kfree(mask);
	else if (tc_skip_sw(fnew->flags))
		err = fl_insert_hw(tp, fold, fnew, mask, handle, rtnl_held,
				   extack);
	else
		err = fl_insert_sw(tp, fold, fnew, mask, handle, rtnl_held,
				   extack);
	if (err) {
		fl_filter_discard(tp, fnew);
		return err;
	}

	if (fold) {
		if (fold->mask != fnew->mask)
			fl_filter_retire(tp, fold);
		if (!tc_skip_hw(fold->flags))
			fl_hw_destroy_filter(tp, fold, rtnl_held, NULL);
		fl_filter_release(tp, fold);
	}
	*arg = fnew;
	return 0;
}

/* A replace comes with fl_get()'s reference to the filter it replaces;
 * the request gives it up here, whatever the outcome.
 */
static int fl_change(struct net *net, struct sk_buff *in_skb,
		     struct tcf_proto *tp, unsigned long base, u32 handle,
		     struct nlattr **tca, void **arg, u32 flags,
		     struct netlink_ext_ack *extack)
{
	struct cls_fl_filter *fold = *arg;
	struct nlattr **tb;
	int err;

	/* Too big for the stack */
	tb = kcalloc(TCA_FLOWER_MAX + 1, sizeof(*tb), GFP_KERNEL);
	if (!tb) {
		err = -ENOBUFS;
		goto out;
	}

	err = fl_parse_opts(tca[TCA_OPTIONS], tb, extack);
	if (!err)
		err = fl_change_filter(net, tp, base, handle, tb, tca[TCA_RATE],
				       arg, flags, extack);
	kfree(tb);
out:
	if (fold)
		fl_filter_put(fold);
	return err;
}

/* @arg comes with fl_get()'s reference, which goes here */
static int fl_delete(struct tcf_proto *tp, void *arg, bool *last,
		     bool rtnl_held, struct netlink_ext_ack *extack)
{
	struct cls_fl_head *head = fl_head(tp);
	struct cls_fl_filter *f = arg;
	bool gone;

	mutex_lock(&head->lock);
	gone = f->deleted;
	if (!gone) {
		idr_remove(&head->handle_idr, f->handle);
		fl_filter_remove(head, f, true);
	}
	*last = idr_is_empty(&head->handle_idr);
	mutex_unlock(&head->lock);

	if (!gone) {
		if (!tc_skip_hw(f->flags))
			fl_hw_destroy_filter(tp, f, rtnl_held, extack);
		fl_filter_release(tp, f);
	}
	fl_filter_put(f);
	if (gone) {
		NL_SET_ERR_MSG(extack, "Filter was deleted by another request");
		return -ENOENT;
	}
	return 0;
}

/* cls_api asks before it unlinks an instance that looked empty: a filter
 * may have come since.  Once tp->deleting is set, fl_insert() refuses.
 */
static bool fl_delete_empty(struct tcf_proto *tp)
{
	struct cls_fl_head *head = fl_head(tp);
	bool empty;

	mutex_lock(&head->lock);
	empty = idr_is_empty(&head->handle_idr);
	spin_lock(&tp->lock);
	WRITE_ONCE(tp->deleting, empty);
	spin_unlock(&tp->lock);
	mutex_unlock(&head->lock);
	return empty;
}

/* Walks in handle order; arg->cookie is the handle to resume from, so a
 * dump of many filters spread over many messages stays linear.  The
 * iterator stops when the handle wraps, which it does after handle
 * 0xffffffff where a long has 32 bits.  The IDR is read under RCU; a
 * filter is held while arg->fn() runs, which may sleep, and one whose
 * last reference is going is left out.
 */
static void fl_walk(struct tcf_proto *tp, struct tcf_walker *arg,
		    bool rtnl_held)
{
	struct cls_fl_head *head = fl_head(tp);
	unsigned long handle = arg->cookie, tmp;
	struct cls_fl_filter *f;
	int stop;

	rcu_read_lock();
	idr_for_each_entry_continue_ul(&head->handle_idr, f, tmp, handle) {
		if (!refcount_inc_not_zero(&f->refs))
			continue;
		rcu_read_unlock();
		stop = arg->fn(tp, f, arg) < 0;
		fl_filter_put(f);
		rcu_read_lock();
		if (stop) {
			arg->stop = 1;
			break;
		}
		arg->count++;
	}
	rcu_read_unlock();
	arg->cookie = handle;
}

/* The next filter offered to drivers after @f (NULL: the first), with a
 * reference.  @f stays on the list while its caller holds block->cb_lock.
 */
static struct cls_fl_filter *fl_hw_next(struct tcf_proto *tp,
					struct cls_fl_filter *f, bool add)
{
	struct cls_fl_head *head = fl_head(tp);

	spin_lock(&tp->lock);
	f = list_prepare_entry(f, &head->hw_filters, hw_list);
	list_for_each_entry_continue(f, &head->hw_filters, hw_list) {
		if (add && READ_ONCE(f->deleted))
			continue;
		if (refcount_inc_not_zero(&f->refs)) {
			spin_unlock(&tp->lock);
			return f;
		}
	}
	spin_unlock(&tp->lock);
	return NULL;
}

/* Under RTNL and block->cb_lock: a driver's callback joins the block
 * (@add) or leaves it, and is given, or has taken back, every filter
 * offered to drivers.  A skip_sw filter it cannot take fails the bind.
 */
static int fl_reoffload(struct tcf_proto *tp, bool add, flow_setup_cb_t *cb,
			void *cb_priv, struct netlink_ext_ack *extack)
{
	struct tcf_block *block = tp->chain->block;
	struct cls_fl_filter *f = NULL;
	int err = 0;

	ASSERT_RTNL();
	while (!err && (f = fl_hw_next(tp, f, add))) {
		struct flow_dissector dissector;
		struct flow_cls_offload cls = {};

		err = fl_hw_rule_init(&cls, tp, f, &f->mask->key, &dissector,
				      add ? FLOW_CLS_REPLACE : FLOW_CLS_DESTROY,
				      extack);
		if (!err) {
			err = tc_setup_cb_reoffload(block, tp, add, cb,
						    TC_SETUP_CLSFLOWER, &cls,
						    cb_priv, &f->flags,
						    &f->in_hw_count);
			fl_hw_rule_free(&cls, &f->mask->key);
		} else if (err != -ENOMEM && !tc_skip_sw(f->flags)) {
			err = 0;	/* its actions stay in software */
		}
		fl_filter_put(f);
	}
	return err;
}

/* From tc_setup_cb_add(), under block->cb_lock */
static void fl_hw_add(struct tcf_proto *tp, void *type_data)
{
	struct flow_cls_offload *cls = type_data;

	fl_hw_list_add(tp, (struct cls_fl_filter *)cls->cookie);
}

/* From tc_setup_cb_destroy(), under block->cb_lock */
static void fl_hw_del(struct tcf_proto *tp, void *type_data)
{
	struct flow_cls_offload *cls = type_data;
	struct cls_fl_filter *f = (struct cls_fl_filter *)cls->cookie;

	spin_lock(&tp->lock);
	list_del_init(&f->hw_list);
	spin_unlock(&tp->lock);
}

static int fl_dump_key_val(struct sk_buff *skb,
			   const struct fl_key_desc *desc,
			   const struct fl_flow_key *key,
			   const struct fl_flow_key *mask)
{
	const u8 *mask_member = (const u8 *)mask + desc->offset;

	if (!memchr_inv(mask_member, 0, desc->len))
		return 0;
	/* A member shared with a key of another protocol */
	if (!fl_need_met(key, mask, desc->need))
		return 0;

	if (nla_put(skb, desc->type, desc->len, (const u8 *)key + desc->offset))
		return -EMSGSIZE;
	/* The mask always comes along, exact or not: tc prints addresses
	 * only when their mask is there, and it sends one with each.
	 */
	if (desc->mask_type &&
	    nla_put(skb, desc->mask_type, desc->len, mask_member))
		return -EMSGSIZE;
	return 0;
}

static int fl_dump_key_tag(struct sk_buff *skb, int vid_type, int prio_type,
			   const struct flow_dissector_key_vlan *key,
			   const struct flow_dissector_key_vlan *mask)
{
	if (mask->vlan_id && nla_put_u16(skb, vid_type, key->vlan_id))
		return -EMSGSIZE;
	if (mask->vlan_priority &&
	    nla_put_u8(skb, prio_type, key->vlan_priority))
		return -EMSGSIZE;
	return 0;
}

/* A tag the filter looks at: by its TPID, or only by num_of_vlans' word */
static bool fl_tag_used(const struct flow_dissector_key_vlan *mask)
{
	return memchr_inv(mask, 0, sizeof(*mask));
}

/* The innermost ethertype as the flow dissector reports it for the frames
 * the filter matches.  A PPPoE session carrying IP, IPv6 or MPLS reports
 * that protocol (fl_set_key_pppoe() keys it); any other PPP protocol
 * leaves it at the session ethertype.
 */
static __be16 fl_inner_ethertype(const struct fl_flow_key *key,
				 const struct fl_flow_key *mask)
{
	if (mask->basic.n_proto)
		return key->basic.n_proto;
	if (mask->pppoe.ppp_proto)
		return key->pppoe.type;
	return 0;
}

static int fl_dump_key_vlans(struct sk_buff *skb,
			     const struct fl_flow_key *key,
			     const struct fl_flow_key *mask)
{
	__be16 ethertype = fl_inner_ethertype(key, mask);

	/* The innermost ethertype, which Open vSwitch compares with the type
	 * after the tags it asked for; nothing when the filter gives only
	 * tags.  The TPID is the filter's protocol.
	 */
	if ((ethertype &&
	     nla_put_be16(skb, TCA_FLOWER_KEY_ETH_TYPE, ethertype)) ||
	    fl_dump_key_tag(skb, TCA_FLOWER_KEY_VLAN_ID,
			    TCA_FLOWER_KEY_VLAN_PRIO, &key->vlan, &mask->vlan))
		return -EMSGSIZE;
	if (mask->vlan.vlan_eth_type &&
	    nla_put_be16(skb, TCA_FLOWER_KEY_VLAN_ETH_TYPE,
			 key->vlan.vlan_eth_type))
		return -EMSGSIZE;
	if (!fl_tag_used(&mask->cvlan))
		return 0;

	if (fl_dump_key_tag(skb, TCA_FLOWER_KEY_CVLAN_ID,
			    TCA_FLOWER_KEY_CVLAN_PRIO, &key->cvlan,
			    &mask->cvlan))
		return -EMSGSIZE;
	if (mask->cvlan.vlan_eth_type &&
	    nla_put_be16(skb, TCA_FLOWER_KEY_CVLAN_ETH_TYPE,
			 key->cvlan.vlan_eth_type))
		return -EMSGSIZE;
	return 0;
}

static int fl_dump_key_ppp(struct sk_buff *skb, const struct fl_flow_key *key,
			   const struct fl_flow_key *mask)
{
	if (mask->pppoe.ppp_proto &&
	    nla_put_be16(skb, TCA_FLOWER_KEY_PPP_PROTO, key->pppoe.ppp_proto))
		return -EMSGSIZE;
	return 0;
}

/* The protocol keys, as fl_set_key_eth_type() took them */
static int fl_dump_key_eth_type(struct sk_buff *skb,
				const struct fl_flow_key *key,
				const struct fl_flow_key *mask)
{
	/* num_of_vlans 2 cvlan_id 7 has no key of the outer tag */
	if (fl_tag_used(&mask->vlan) || fl_tag_used(&mask->cvlan))
		return fl_dump_key_vlans(skb, key, mask) ?:
		       fl_dump_key_ppp(skb, key, mask);

	if (mask->pppoe.type)
		return nla_put_be16(skb, TCA_FLOWER_KEY_ETH_TYPE,
				    key->pppoe.type) ?:
		       fl_dump_key_ppp(skb, key, mask);

	if (mask->basic.n_proto &&
	    nla_put_be16(skb, TCA_FLOWER_KEY_ETH_TYPE, key->basic.n_proto))
		return -EMSGSIZE;
	return 0;
}

static int fl_dump_key_ip_flags(struct sk_buff *skb,
				const struct fl_flow_key *key,
				const struct fl_flow_key *mask)
{
	__be32 flags, fmask;

	if (!mask->control.flags)
		return 0;
	flags = cpu_to_be32(fl_ip_flags_to_uapi(key->control.flags));
	fmask = cpu_to_be32(fl_ip_flags_to_uapi(mask->control.flags));
	if (nla_put_be32(skb, TCA_FLOWER_KEY_FLAGS, flags) ||
	    nla_put_be32(skb, TCA_FLOWER_KEY_FLAGS_MASK, fmask))
		return -EMSGSIZE;
	return 0;
}

static int fl_dump_key_lse(struct sk_buff *skb, const int *types,
			   const struct flow_dissector_mpls_lse *key,
			   const struct flow_dissector_mpls_lse *mask)
{
	if (mask->mpls_ttl && nla_put_u8(skb, types[0], key->mpls_ttl))
		return -EMSGSIZE;
	if (mask->mpls_bos && nla_put_u8(skb, types[1], key->mpls_bos))
		return -EMSGSIZE;
	if (mask->mpls_tc && nla_put_u8(skb, types[2], key->mpls_tc))
		return -EMSGSIZE;
	if (mask->mpls_label && nla_put_u32(skb, types[3], key->mpls_label))
		return -EMSGSIZE;
	return 0;
}

static int fl_dump_key_mpls_opts(struct sk_buff *skb,
				 const struct fl_flow_key *key,
				 const struct fl_flow_key *mask)
{
	static const int types[] = {
		TCA_FLOWER_KEY_MPLS_OPT_LSE_TTL,
		TCA_FLOWER_KEY_MPLS_OPT_LSE_BOS,
		TCA_FLOWER_KEY_MPLS_OPT_LSE_TC,
		TCA_FLOWER_KEY_MPLS_OPT_LSE_LABEL,
	};
	struct nlattr *opts, *lse;
	int i;

	opts = nla_nest_start(skb, TCA_FLOWER_KEY_MPLS_OPTS);
	if (!opts)
		return -EMSGSIZE;
	for (i = 0; i < FLOW_DIS_MPLS_MAX; i++) {
		if (!(mask->mpls.used_lses & BIT(i)))
			continue;
		lse = nla_nest_start(skb, TCA_FLOWER_KEY_MPLS_OPTS_LSE);
		if (!lse ||
		    nla_put_u8(skb, TCA_FLOWER_KEY_MPLS_OPT_LSE_DEPTH, i + 1) ||
		    fl_dump_key_lse(skb, types, &key->mpls.ls[i],
				    &mask->mpls.ls[i]))
			return -EMSGSIZE;
		nla_nest_end(skb, lse);
	}
	nla_nest_end(skb, opts);
	return 0;
}

/* The first entry's keys alone dump as tc's mpls_label ... attributes */
static int fl_dump_key_mpls(struct sk_buff *skb,
			    const struct fl_flow_key *key,
			    const struct fl_flow_key *mask)
{
	static const int types[] = {
		TCA_FLOWER_KEY_MPLS_TTL, TCA_FLOWER_KEY_MPLS_BOS,
		TCA_FLOWER_KEY_MPLS_TC, TCA_FLOWER_KEY_MPLS_LABEL,
	};
	const struct flow_dissector_mpls_lse *first = &mask->mpls.ls[0];

	if (!mask->mpls.used_lses)
		return 0;
	if (mask->mpls.used_lses != BIT(0) ||
	    !(first->mpls_ttl || first->mpls_bos || first->mpls_tc ||
	      first->mpls_label))
		return fl_dump_key_mpls_opts(skb, key, mask);
	return fl_dump_key_lse(skb, types, &key->mpls.ls[0], first);
}

/* One list of Geneve options, laid out as the key's (the mask's own
 * lengths are all ones)
 */
static int fl_dump_geneve_opts(struct sk_buff *skb, int type,
			       const struct flow_dissector_key_enc_opts *opts,
			       const struct flow_dissector_key_enc_opts *key)
{
	struct nlattr *list, *nest;
	unsigned int off, len;

	list = nla_nest_start(skb, type);
	if (!list)
		return -EMSGSIZE;
	for (off = 0; off < key->len; off += sizeof(struct geneve_opt) + len) {
		const struct geneve_opt *kopt = (void *)&key->data[off];
		const struct geneve_opt *opt = (void *)&opts->data[off];

		len = kopt->length * 4;
		nest = nla_nest_start(skb, TCA_FLOWER_KEY_ENC_OPTS_GENEVE);
		if (!nest ||
		    nla_put_be16(skb, TCA_FLOWER_KEY_ENC_OPT_GENEVE_CLASS,
				 opt->opt_class) ||
		    nla_put_u8(skb, TCA_FLOWER_KEY_ENC_OPT_GENEVE_TYPE,
			       opt->type) ||
		    nla_put(skb, TCA_FLOWER_KEY_ENC_OPT_GENEVE_DATA, len,
			    opt->opt_data))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	nla_nest_end(skb, list);
	return 0;
}

static int fl_dump_tun_opt(struct sk_buff *skb, int type,
			   const struct fl_tun_opt_kind *kind, const void *opt)
{
	struct nlattr *list, *nest;

	list = nla_nest_start(skb, type);
	if (!list)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, kind->attr);
	if (!nest || kind->dump(skb, opt))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	nla_nest_end(skb, list);
	return 0;
}

static int fl_dump_key_enc_opts(struct sk_buff *skb,
				const struct fl_flow_key *key,
				const struct fl_flow_key *mask)
{
	const struct fl_tun_opt_kind *kind;

	if (!mask->enc_opts.len)
		return 0;
	kind = fl_tun_opt_kind_of(key->enc_opts.dst_opt_type);
	if (kind)
		return fl_dump_tun_opt(skb, TCA_FLOWER_KEY_ENC_OPTS, kind,
				       key->enc_opts.data) ?:
		       fl_dump_tun_opt(skb, TCA_FLOWER_KEY_ENC_OPTS_MASK, kind,
				       mask->enc_opts.data);
	return fl_dump_geneve_opts(skb, TCA_FLOWER_KEY_ENC_OPTS,
				   &key->enc_opts, &key->enc_opts) ?:
	       fl_dump_geneve_opts(skb, TCA_FLOWER_KEY_ENC_OPTS_MASK,
				   &mask->enc_opts, &key->enc_opts);
}

/* An address key whose mask is all zero still asks for an address of its
 * family (fl_set_key_addr_type(), fl_set_key_enc_control()), but the rows
 * dump no zero mask: dump it as dst 0/0, which gives the filter back.
 */
static int fl_dump_zero_addr(struct sk_buff *skb, bool v4, const void *mask,
			     int v4_dst, int v4_dst_mask, int v6_dst,
			     int v6_dst_mask)
{
	static const u8 zero[sizeof(struct in6_addr)];
	size_t len = v4 ? sizeof(struct flow_dissector_key_ipv4_addrs) :
			  sizeof(struct flow_dissector_key_ipv6_addrs);

	if (memchr_inv(mask, 0, len))
		return 0;	/* a row dumps the address */
	len /= 2;		/* one of src and dst */
	return nla_put(skb, v4 ? v4_dst : v6_dst, len, zero) ?:
	       nla_put(skb, v4 ? v4_dst_mask : v6_dst_mask, len, zero);
}

static int fl_dump_key_zero_addrs(struct sk_buff *skb,
				  const struct fl_flow_key *key,
				  const struct fl_flow_key *mask)
{
	const u16 v4 = FLOW_DISSECTOR_KEY_IPV4_ADDRS;

	if (mask->control.addr_type &&
	    fl_dump_zero_addr(skb, key->control.addr_type == v4,
			      key->control.addr_type == v4 ?
			      (const void *)&mask->ipv4 : &mask->ipv6,
			      TCA_FLOWER_KEY_IPV4_DST,
			      TCA_FLOWER_KEY_IPV4_DST_MASK,
			      TCA_FLOWER_KEY_IPV6_DST,
			      TCA_FLOWER_KEY_IPV6_DST_MASK))
		return -EMSGSIZE;
	/* (a family: FL_TUNNEL_ANY is not one) */
	if (mask->enc_control.addr_type == (u16)~0 &&
	    fl_dump_zero_addr(skb, key->enc_control.addr_type == v4,
			      key->enc_control.addr_type == v4 ?
			      (const void *)&mask->enc_ipv4 : &mask->enc_ipv6,
			      TCA_FLOWER_KEY_ENC_IPV4_DST,
			      TCA_FLOWER_KEY_ENC_IPV4_DST_MASK,
			      TCA_FLOWER_KEY_ENC_IPV6_DST,
			      TCA_FLOWER_KEY_ENC_IPV6_DST_MASK))
		return -EMSGSIZE;
	return 0;
}

static int fl_dump_key(struct sk_buff *skb, struct net *net,
		       const struct fl_flow_key *key,
		       const struct fl_flow_key *mask)
{
	int i;

	if (mask->meta.ingress_ifindex) {
		struct net_device *dev;
		int err = 0;

		/* Requests without RTNL dump too */
		rcu_read_lock();
		dev = dev_get_by_index_rcu(net, key->meta.ingress_ifindex);
		if (dev)
			err = nla_put_string(skb, TCA_FLOWER_INDEV, dev->name);
		rcu_read_unlock();
		if (err)
			return -EMSGSIZE;
	}

	if (fl_dump_key_eth_type(skb, key, mask) ||
	    fl_dump_key_ip_flags(skb, key, mask) ||
	    fl_dump_key_mpls(skb, key, mask) ||
	    fl_dump_key_enc_opts(skb, key, mask))
		return -EMSGSIZE;

	for (i = 0; i < ARRAY_SIZE(fl_keys); i++)
		if (fl_dump_key_val(skb, &fl_keys[i], key, mask))
			return -EMSGSIZE;
	return fl_dump_key_zero_addrs(skb, key, mask);
}

/* The flags, after the drivers' counters were added to the actions', and
 * how many drivers hold the filter (not in a terse dump, as always)
 */
static int fl_dump_flags(struct sk_buff *skb, struct tcf_proto *tp,
			 struct cls_fl_filter *f, bool rtnl_held, bool count)
{
	unsigned int in_hw_count;
	u32 flags;

	if (!tc_skip_hw(f->flags))
		fl_hw_update_stats(tp, f, rtnl_held);

	spin_lock(&tp->lock);
	flags = f->flags;
	in_hw_count = f->in_hw_count;
	spin_unlock(&tp->lock);

	if (flags && nla_put_u32(skb, TCA_FLOWER_FLAGS, flags))
		return -EMSGSIZE;
	if (count && nla_put_u32(skb, TCA_FLOWER_IN_HW_COUNT, in_hw_count))
		return -EMSGSIZE;
	return 0;
}

static int fl_dump(struct net *net, struct tcf_proto *tp, void *fh,
		   struct sk_buff *skb, struct tcmsg *t, bool rtnl_held)
{
	struct cls_fl_filter *f = fh;
	struct nlattr *nest;

	if (!f)
		return skb->len;

	t->tcm_handle = f->handle;

	nest = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!nest)
		goto nla_put_failure;

	if (f->res.classid &&
	    nla_put_u32(skb, TCA_FLOWER_CLASSID, f->res.classid))
		goto nla_put_failure;

	if (fl_dump_key(skb, net, &f->key, &f->mask->key) ||
	    fl_dump_flags(skb, tp, f, rtnl_held, true) ||
	    tcf_exts_dump(skb, &f->exts))
		goto nla_put_failure;

	nla_nest_end(skb, nest);

	if (tcf_exts_dump_stats(skb, &f->exts) < 0)
		goto nla_put_failure;

	return skb->len;

nla_put_failure:
	nla_nest_cancel(skb, nest);
	return -1;
}

/* tc -brief: the handle, flags and actions; no keys */
static int fl_terse_dump(struct net *net, struct tcf_proto *tp, void *fh,
			 struct sk_buff *skb, struct tcmsg *t, bool rtnl_held)
{
	struct cls_fl_filter *f = fh;
	struct nlattr *nest;

	if (!f)
		return skb->len;

	t->tcm_handle = f->handle;

	nest = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!nest)
		goto nla_put_failure;

	if (fl_dump_flags(skb, tp, f, rtnl_held, false) ||
	    tcf_exts_terse_dump(skb, &f->exts))
		goto nla_put_failure;

	nla_nest_end(skb, nest);
	return skb->len;

nla_put_failure:
	nla_nest_cancel(skb, nest);
	return -1;
}

static void fl_bind_class(void *fh, u32 classid, unsigned long cl, void *q,
			  unsigned long base)
{
	struct cls_fl_filter *f = fh;

	tc_cls_bind_class(classid, cl, q, &f->res, base);
}

/* A chain template: keys, whose masks bound those of the chain's filters */
static void *fl_tmplt_create(struct net *net, struct tcf_chain *chain,
			     struct nlattr **tca,
			     struct netlink_ext_ack *extack)
{
	static const int not_keys[] = { TCA_FLOWER_ACT, TCA_FLOWER_CLASSID };
	struct flow_cls_offload cls = {};
	struct fl_tmplt *tmplt;
	struct nlattr *nla;
	struct nlattr **tb;
	int err;

	tb = kcalloc(TCA_FLOWER_MAX + 1, sizeof(*tb), GFP_KERNEL);
	tmplt = kzalloc(sizeof(*tmplt), GFP_KERNEL);
	if (!tb || !tmplt) {
		err = -ENOBUFS;
		goto err_free;
	}

	err = fl_parse_opts(tca[TCA_OPTIONS], tb, extack);
	if (err)
		goto err_free;
	/* tc sends flags 0 with every request */
	nla = fl_first_attr(tb, not_keys, ARRAY_SIZE(not_keys));
	if (!nla && tb[TCA_FLOWER_FLAGS] && nla_get_u32(tb[TCA_FLOWER_FLAGS]))
		nla = tb[TCA_FLOWER_FLAGS];
	if (nla) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "A chain template takes keys only");
		err = -EINVAL;
		goto err_free;
	}
	/* The request's protocol does not reach a template: tc sends it as
	 * TCA_FLOWER_KEY_ETH_TYPE
	 */
	err = fl_set_key(net, tb, htons(ETH_P_ALL), &tmplt->key,
			 &tmplt->mask, extack);
	if (err)
		goto err_free;
	kfree(tb);

	tmplt->chain = chain;
	fl_hw_dissector_init(&tmplt->dissector, &tmplt->mask);
	tmplt->hw_mask = tmplt->mask;
	fl_hw_geneve_lengths(&tmplt->hw_mask, &tmplt->key);
	cls.rule = flow_rule_alloc(0);
	if (!cls.rule) {
		kfree(tmplt);
		return ERR_PTR(-ENOMEM);
	}
	fl_hw_tmplt_init(&cls, tmplt, FLOW_CLS_TMPLT_CREATE);
	tc_setup_cb_call(chain->block, TC_SETUP_CLSFLOWER, &cls, false, true);
	kfree(cls.rule);
	return tmplt;

err_free:
	kfree(tmplt);
	kfree(tb);
	return ERR_PTR(err);
}

/* Under RTNL, as every chain template operation */
static void fl_tmplt_destroy(void *tmplt_priv)
{
	struct fl_tmplt *tmplt = tmplt_priv;
	struct flow_cls_offload cls = {};

	fl_hw_tmplt_init(&cls, tmplt, FLOW_CLS_TMPLT_DESTROY);
	tc_setup_cb_call(tmplt->chain->block, TC_SETUP_CLSFLOWER, &cls, false,
			 true);
	kfree(tmplt);
}

static void fl_tmplt_reoffload(struct tcf_chain *chain, bool add,
			       flow_setup_cb_t *cb, void *cb_priv)
{
	struct fl_tmplt *tmplt = chain->tmplt_priv;
	struct flow_cls_offload cls = {};

	cls.rule = flow_rule_alloc(0);
	if (!cls.rule)
		return;
	fl_hw_tmplt_init(&cls, tmplt, add ? FLOW_CLS_TMPLT_CREATE :
					    FLOW_CLS_TMPLT_DESTROY);
	cb(TC_SETUP_CLSFLOWER, &cls, cb_priv);
	kfree(cls.rule);
}

static int fl_tmplt_dump(struct sk_buff *skb, struct net *net,
			 void *tmplt_priv)
{
	struct fl_tmplt *tmplt = tmplt_priv;
	struct nlattr *nest;

	nest = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!nest)
		return -EMSGSIZE;
	if (fl_dump_key(skb, net, &tmplt->key, &tmplt->mask)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return skb->len;
}

static struct tcf_proto_ops cls_fl_ops __read_mostly = {
	.kind		= "flower",
	.classify	= fl_classify,
	.init		= fl_init,
	.destroy	= fl_destroy,
	.get		= fl_get,
	.put		= fl_put,
	.change		= fl_change,
	.delete		= fl_delete,
	.delete_empty	= fl_delete_empty,
	.walk		= fl_walk,
	.reoffload	= fl_reoffload,
	.hw_add		= fl_hw_add,
	.hw_del		= fl_hw_del,
	.dump		= fl_dump,
	.terse_dump	= fl_terse_dump,
	.bind_class	= fl_bind_class,
	.tmplt_create	= fl_tmplt_create,
	.tmplt_destroy	= fl_tmplt_destroy,
	.tmplt_reoffload = fl_tmplt_reoffload,
	.tmplt_dump	= fl_tmplt_dump,
	.owner		= THIS_MODULE,
	.flags		= TCF_PROTO_OPS_DOIT_UNLOCKED,
};

static int __init cls_fl_init(void)
{
	skb_flow_dissector_init(&fl_frag_dissector, fl_frag_keys,
				ARRAY_SIZE(fl_frag_keys));
	return register_tcf_proto_ops(&cls_fl_ops);
}

static void __exit cls_fl_exit(void)
{
	unregister_tcf_proto_ops(&cls_fl_ops);
}

module_init(cls_fl_init);
module_exit(cls_fl_exit);

MODULE_AUTHOR("Jiri Pirko <jiri@resnulli.us>");
MODULE_DESCRIPTION("Flower classifier: masked-key hash lookups, one dissection per instance");
MODULE_LICENSE("GPL");
