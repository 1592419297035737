// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Flower classifier.
 *
 * Classifies packets on a combination of header fields picked out by the
 * programmable flow dissector.  This is the design of the original flower
 * proposal: every classifier instance (one tcf_proto, i.e. one prio and
 * protocol) has exactly one mask, fixed by its first filter.  A packet is
 * dissected once, masked with that mask, and the masked key is looked up
 * in an rhashtable, so the cost of classifying does not grow with the
 * number of filters.  A filter that needs another mask goes to another
 * prio.  The design is Jiri Pirko's (net-next, April 2015); this code is
 * written afresh against the 6.1 classifier API.
 *
 * Locking: the control operations (change, delete, get, walk, dump,
 * destroy) all run under RTNL, since these ops do not set
 * TCF_PROTO_OPS_DOIT_UNLOCKED; the handle IDR is only used there.
 * fl_classify() runs under rcu_read_lock_bh() and sees the instance mask,
 * the hashtable and the filters only after they were published; a filter
 * or instance that is taken away is freed after an RCU grace period.
 */

#include <linux/kernel.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/rhashtable.h>
#include <linux/workqueue.h>
#include <linux/idr.h>

#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/in6.h>
#include <linux/ip.h>

#include <net/sch_generic.h>
#include <net/pkt_cls.h>
#include <net/flow_dissector.h>

struct fl_flow_key {
	int indev_ifindex;
	struct flow_dissector_key_control control;
	struct flow_dissector_key_basic basic;
	struct flow_dissector_key_eth_addrs eth;
	struct flow_dissector_key_vlan vlan;
	union {
		struct flow_dissector_key_ipv4_addrs ipv4;
		struct flow_dissector_key_ipv6_addrs ipv6;
	};
	struct flow_dissector_key_ports tp;
	struct flow_dissector_key_icmp icmp;
	struct flow_dissector_key_arp arp;
	struct flow_dissector_key_ip ip;
	struct flow_dissector_key_tcp tcp;
} __aligned(BITS_PER_LONG / 8); /* masked keys are computed long by long */

/* The part of the key that the mask touches, rounded out to longs */
struct fl_flow_mask_range {
	unsigned short int start;
	unsigned short int end;
};

struct fl_flow_mask {
	struct fl_flow_key key;
	struct fl_flow_mask_range range;
	struct flow_dissector dissector;
	struct rhashtable_params ht_params;
};

struct cls_fl_head {
	struct fl_flow_mask __rcu *mask;	/* NULL until the first filter */
	struct rhashtable ht;			/* masked key -> filter */
	struct idr handle_idr;			/* handle -> filter */
	struct rcu_work rwork;
};

struct cls_fl_filter {
	struct rhash_head ht_node;
	struct fl_flow_key mkey;	/* key & instance mask: the hash key */
	struct fl_flow_key key;		/* key as given, for dumps */
	struct tcf_exts exts;
	struct tcf_result res;
	u32 handle;
	u32 flags;
	struct rcu_work rwork;
};

/* What the filter's protocol and ip_proto must be for a key to apply */
enum fl_need {
	FL_NEED_NONE,
	FL_NEED_IP,
	FL_NEED_IPV4,
	FL_NEED_IPV6,
	FL_NEED_TCP,
	FL_NEED_UDP,
	FL_NEED_SCTP,
	FL_NEED_ICMPV4,
	FL_NEED_ICMPV6,
	FL_NEED_ARP,
	FL_NEED_VLAN,
};

static const char * const fl_need_msg[] = {
	[FL_NEED_IP]	 = "Key requires protocol ip or ipv6",
	[FL_NEED_IPV4]	 = "Key requires protocol ip",
	[FL_NEED_IPV6]	 = "Key requires protocol ipv6",
	[FL_NEED_TCP]	 = "Key requires ip_proto tcp",
	[FL_NEED_UDP]	 = "Key requires ip_proto udp",
	[FL_NEED_SCTP]	 = "Key requires ip_proto sctp",
	[FL_NEED_ICMPV4] = "Key requires protocol ip and ip_proto icmp",
	[FL_NEED_ICMPV6] = "Key requires protocol ipv6 and ip_proto icmpv6",
	[FL_NEED_ARP]	 = "Key requires protocol arp or rarp",
	[FL_NEED_VLAN]	 = "Key requires protocol 802.1q or 802.1ad",
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

/*
 * Rows are parsed in this order: IP_PROTO comes first because whether a
 * later key applies can depend on it.  The TCP, UDP and SCTP ports share
 * one member; the filter's ip_proto tells which attribute dumps it.
 */
static const struct fl_key_desc fl_keys[] = {
	FL_KEY_EXACT(IP_PROTO, basic.ip_proto, IP),
	FL_KEY_MASKED(ETH_DST, eth.dst, NONE),
	FL_KEY_MASKED(ETH_SRC, eth.src, NONE),
	FL_KEY_MASKED(IPV4_SRC, ipv4.src, IPV4),
	FL_KEY_MASKED(IPV4_DST, ipv4.dst, IPV4),
	FL_KEY_MASKED(IPV6_SRC, ipv6.src, IPV6),
	FL_KEY_MASKED(IPV6_DST, ipv6.dst, IPV6),
	FL_KEY_MASKED(IP_TOS, ip.tos, IP),
	FL_KEY_MASKED(IP_TTL, ip.ttl, IP),
	FL_KEY_MASKED(TCP_SRC, tp.src, TCP),
	FL_KEY_MASKED(TCP_DST, tp.dst, TCP),
	FL_KEY_MASKED(UDP_SRC, tp.src, UDP),
	FL_KEY_MASKED(UDP_DST, tp.dst, UDP),
	FL_KEY_MASKED(SCTP_SRC, tp.src, SCTP),
	FL_KEY_MASKED(SCTP_DST, tp.dst, SCTP),
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
};

/* Attributes handled outside fl_keys, with their exact payload length */
#define FL_LEN_VAR	U8_MAX	/* variable: checked by its parser */

static const struct {
	u16 type;
	u8 len;
} fl_other_attrs[] = {
	{ TCA_FLOWER_CLASSID,		sizeof(u32) },
	{ TCA_FLOWER_INDEV,		FL_LEN_VAR },
	{ TCA_FLOWER_ACT,		FL_LEN_VAR },
	{ TCA_FLOWER_FLAGS,		sizeof(u32) },
	{ TCA_FLOWER_KEY_ETH_TYPE,	sizeof(__be16) },
	{ TCA_FLOWER_KEY_VLAN_ID,	sizeof(u16) },
	{ TCA_FLOWER_KEY_VLAN_PRIO,	sizeof(u8) },
	{ TCA_FLOWER_KEY_VLAN_ETH_TYPE,	sizeof(__be16) },
};

/* Length of every attribute we implement; 0: not implemented.  Filled
 * from the two tables above at module init.
 */
static u8 fl_attr_len[TCA_FLOWER_MAX + 1] __ro_after_init;

#define FL_UNSUPPORTED(attr)						\
	[attr] = "Unsupported flower attribute " #attr

static const char * const fl_unsupported_msg[TCA_FLOWER_MAX + 1] = {
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_KEY_ID),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_IPV4_SRC),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_IPV4_SRC_MASK),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_IPV4_DST),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_IPV4_DST_MASK),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_IPV6_SRC),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_IPV6_SRC_MASK),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_IPV6_DST),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_IPV6_DST_MASK),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_UDP_SRC_PORT),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_UDP_SRC_PORT_MASK),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_UDP_DST_PORT),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_UDP_DST_PORT_MASK),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_IP_TOS),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_IP_TOS_MASK),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_IP_TTL),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_IP_TTL_MASK),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_OPTS),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_ENC_OPTS_MASK),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_FLAGS),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_FLAGS_MASK),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_MPLS_TTL),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_MPLS_BOS),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_MPLS_TC),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_MPLS_LABEL),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_MPLS_OPTS),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_CVLAN_ID),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_CVLAN_PRIO),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_CVLAN_ETH_TYPE),
	FL_UNSUPPORTED(TCA_FLOWER_IN_HW_COUNT),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_PORT_SRC_MIN),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_PORT_SRC_MAX),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_PORT_DST_MIN),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_PORT_DST_MAX),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_CT_STATE),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_CT_STATE_MASK),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_CT_ZONE),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_CT_ZONE_MASK),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_CT_MARK),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_CT_MARK_MASK),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_CT_LABELS),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_CT_LABELS_MASK),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_HASH),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_HASH_MASK),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_NUM_OF_VLANS),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_PPPOE_SID),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_PPP_PROTO),
	FL_UNSUPPORTED(TCA_FLOWER_KEY_L2TPV3_SID),
};

/* Dissector keys, each switched on only when the mask looks at it */
struct fl_dissector_key {
	enum flow_dissector_key_id id;
	u16 offset;
	u16 len;
};

#define FL_DISSECTOR_KEY(_id, _member) {				\
	.id = FLOW_DISSECTOR_KEY_##_id,					\
	.offset = offsetof(struct fl_flow_key, _member),		\
	.len = sizeof_field(struct fl_flow_key, _member),		\
}

static const struct fl_dissector_key fl_dissector_keys[] = {
	FL_DISSECTOR_KEY(CONTROL, control),
	FL_DISSECTOR_KEY(BASIC, basic),
	FL_DISSECTOR_KEY(ETH_ADDRS, eth),
	FL_DISSECTOR_KEY(VLAN, vlan),
	FL_DISSECTOR_KEY(IPV4_ADDRS, ipv4),
	FL_DISSECTOR_KEY(IPV6_ADDRS, ipv6),
	FL_DISSECTOR_KEY(PORTS, tp),
	FL_DISSECTOR_KEY(ICMP, icmp),
	FL_DISSECTOR_KEY(ARP, arp),
	FL_DISSECTOR_KEY(IP, ip),
	FL_DISSECTOR_KEY(TCP, tcp),
};

/* Like NL_SET_ERR_MSG_ATTR, for messages taken from the tables above */
static void fl_set_err(struct netlink_ext_ack *extack,
		       const struct nlattr *nla, const char *msg)
{
	if (extack) {
		NL_SET_BAD_ATTR(extack, nla);
		extack->_msg = msg;
	}
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

static void fl_clear_masked_range(struct fl_flow_key *key,
				  const struct fl_flow_mask *mask)
{
	memset(fl_key_start(key, mask), 0, fl_mask_range(mask));
}

static int fl_classify(struct sk_buff *skb, const struct tcf_proto *tp,
		       struct tcf_result *res)
{
	struct cls_fl_head *head = rcu_dereference_bh(tp->root);
	struct fl_flow_key skb_key, skb_mkey;
	struct fl_flow_mask *mask;
	struct cls_fl_filter *f;

	mask = rcu_dereference_bh(head->mask);
	if (unlikely(!mask))
		return -1;

	fl_clear_masked_range(&skb_key, mask);
	skb_key.indev_ifindex = skb->skb_iif;
	/* Keys are the outer headers': do not descend into a tunnel */
	skb_flow_dissect(skb, &mask->dissector, &skb_key,
			 FLOW_DISSECTOR_F_STOP_BEFORE_ENCAP);
	fl_set_masked_key(&skb_mkey, &skb_key, mask);

	f = rhashtable_lookup_fast(&head->ht, fl_key_start(&skb_mkey, mask),
				   mask->ht_params);
	if (!f)
		return -1;

	*res = f->res;
	return tcf_exts_exec(skb, &f->exts, res);
}

static int fl_init(struct tcf_proto *tp)
{
	struct cls_fl_head *head;

	head = kzalloc(sizeof(*head), GFP_KERNEL);
	if (!head)
		return -ENOBUFS;

	idr_init(&head->handle_idr);
	rcu_assign_pointer(tp->root, head);
	return 0;
}

static void __fl_filter_free(struct cls_fl_filter *f)
{
	tcf_exts_destroy(&f->exts);
	tcf_exts_put_net(&f->exts);
	kfree(f);
}

static void fl_filter_free_work(struct work_struct *work)
{
	struct cls_fl_filter *f = container_of(to_rcu_work(work),
					       struct cls_fl_filter, rwork);

	rtnl_lock();
	__fl_filter_free(f);
	rtnl_unlock();
}

/* @f is already unreachable for new lookups; classifiers that found it
 * before may run its actions until the grace period ends.
 */
static void fl_filter_release(struct tcf_proto *tp, struct cls_fl_filter *f)
{
	tcf_unbind_filter(tp, &f->res);
	if (tcf_exts_get_net(&f->exts))
		tcf_queue_work(&f->rwork, fl_filter_free_work);
	else
		__fl_filter_free(f);
}

/* For a filter that was never visible to classify */
static void fl_filter_discard(struct cls_fl_filter *f)
{
	tcf_exts_destroy(&f->exts);
	kfree(f);
}

static void fl_head_free_work(struct work_struct *work)
{
	struct cls_fl_head *head = container_of(to_rcu_work(work),
						struct cls_fl_head, rwork);
	/* A grace period has passed: nobody can see the instance any more */
	struct fl_flow_mask *mask = rcu_dereference_protected(head->mask, 1);

	if (mask)
		rhashtable_destroy(&head->ht);
	kfree(mask);
	kfree(head);
}

static void fl_destroy(struct tcf_proto *tp, bool rtnl_held,
		       struct netlink_ext_ack *extack)
{
	struct cls_fl_head *head = rtnl_dereference(tp->root);
	struct fl_flow_mask *mask = rtnl_dereference(head->mask);
	unsigned long handle, tmp;
	struct cls_fl_filter *f;

	/* Out of the table before they are freed: a resize running in the
	 * background must not walk into a freed filter.
	 */
	idr_for_each_entry_ul(&head->handle_idr, f, tmp, handle) {
		rhashtable_remove_fast(&head->ht, &f->ht_node, mask->ht_params);
		fl_filter_release(tp, f);
	}
	idr_destroy(&head->handle_idr);

	tcf_queue_work(&head->rwork, fl_head_free_work);
}

static void *fl_get(struct tcf_proto *tp, u32 handle)
{
	struct cls_fl_head *head = rtnl_dereference(tp->root);

	return idr_find(&head->handle_idr, handle);
}

static int fl_check_attr(const struct nlattr *nla,
			 struct netlink_ext_ack *extack)
{
	int type = nla_type(nla);
	u8 len;

	if (type <= TCA_FLOWER_UNSPEC || type > TCA_FLOWER_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, nla, "Unknown flower attribute type");
		return -EOPNOTSUPP;
	}

	len = fl_attr_len[type];
	if (!len) {
		if (fl_unsupported_msg[type])
			fl_set_err(extack, nla, fl_unsupported_msg[type]);
		else
			NL_SET_ERR_MSG_ATTR(extack, nla,
					    "Unsupported flower attribute");
		return -EOPNOTSUPP;
	}

	if (len != FL_LEN_VAR && nla_len(nla) != len) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "Flower attribute has a wrong length");
		return -EINVAL;
	}
	return 0;
}

/* Every attribute is checked before any is used: an attribute this
 * classifier does not implement is refused, never ignored, since
 * ignoring a key would match more traffic than was asked for.
 */
static int fl_parse_opts(struct nlattr *opts, struct nlattr **tb,
			 struct netlink_ext_ack *extack)
{
	const struct nlattr *nla;
	int rem, err;

	if (!opts) {
		NL_SET_ERR_MSG(extack, "Missing flower options");
		return -EINVAL;
	}

	nla_for_each_nested(nla, opts, rem) {
		err = fl_check_attr(nla, extack);
		if (err)
			return err;
	}
	if (rem) {
		NL_SET_ERR_MSG(extack, "Malformed flower options");
		return -EINVAL;
	}

	return nla_parse_nested_deprecated(tb, TCA_FLOWER_MAX, opts, NULL,
					   extack);
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
	if (tc_skip_sw(*flags)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_FLOWER_FLAGS],
				    "skip_sw needs hardware offload, which this flower classifier does not provide");
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

static bool fl_need_met(const struct fl_flow_key *key,
			const struct fl_flow_key *mask, enum fl_need need)
{
	switch (need) {
	case FL_NEED_NONE:
		return true;
	case FL_NEED_IP:
		return fl_proto_is(key, mask, ETH_P_IP) ||
		       fl_proto_is(key, mask, ETH_P_IPV6);
	case FL_NEED_IPV4:
		return fl_proto_is(key, mask, ETH_P_IP);
	case FL_NEED_IPV6:
		return fl_proto_is(key, mask, ETH_P_IPV6);
	case FL_NEED_TCP:
		return fl_ip_proto_is(key, mask, IPPROTO_TCP);
	case FL_NEED_UDP:
		return fl_ip_proto_is(key, mask, IPPROTO_UDP);
	case FL_NEED_SCTP:
		return fl_ip_proto_is(key, mask, IPPROTO_SCTP);
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
		return mask->vlan.vlan_tpid;
	}
	return false;
}

static int fl_set_key_indev(struct net *net, struct nlattr **tb,
			    struct fl_flow_key *key, struct fl_flow_key *mask,
			    struct netlink_ext_ack *extack)
{
	int ifindex;

	if (!tb[TCA_FLOWER_INDEV])
		return 0;

	ifindex = tcf_change_indev(net, tb[TCA_FLOWER_INDEV], extack);
	if (ifindex < 0)
		return ifindex;
	key->indev_ifindex = ifindex;
	mask->indev_ifindex = ~0;
	return 0;
}

/* The filter's protocol: an ethertype, or a VLAN TPID with the ethertype
 * inside the tag given as VLAN_ETH_TYPE.
 */
static void fl_set_key_eth_type(struct nlattr **tb, struct fl_flow_key *key,
				struct fl_flow_key *mask)
{
	__be16 ethertype;

	if (!tb[TCA_FLOWER_KEY_ETH_TYPE])
		return;

	ethertype = nla_get_be16(tb[TCA_FLOWER_KEY_ETH_TYPE]);
	if (ethertype == htons(ETH_P_ALL))
		return;

	if (eth_type_vlan(ethertype)) {
		key->vlan.vlan_tpid = ethertype;
		mask->vlan.vlan_tpid = htons(0xffff);
	} else {
		key->basic.n_proto = ethertype;
		mask->basic.n_proto = htons(0xffff);
	}
}

static int fl_set_key_vlan(struct nlattr **tb, struct fl_flow_key *key,
			   struct fl_flow_key *mask,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *vid = tb[TCA_FLOWER_KEY_VLAN_ID];
	struct nlattr *prio = tb[TCA_FLOWER_KEY_VLAN_PRIO];
	struct nlattr *ethtype = tb[TCA_FLOWER_KEY_VLAN_ETH_TYPE];

	if (!vid && !prio && !ethtype)
		return 0;
	if (!fl_need_met(key, mask, FL_NEED_VLAN)) {
		fl_set_err(extack, vid ?: prio ?: ethtype,
			   fl_need_msg[FL_NEED_VLAN]);
		return -EINVAL;
	}

	if (vid) {
		if (nla_get_u16(vid) > VLAN_VID_MASK) {
			NL_SET_ERR_MSG_ATTR(extack, vid,
					    "VLAN id must be below 4096");
			return -EINVAL;
		}
		key->vlan.vlan_id = nla_get_u16(vid);
		mask->vlan.vlan_id = VLAN_VID_MASK;
	}
	if (prio) {
		if (nla_get_u8(prio) > VLAN_PRIO_MASK >> VLAN_PRIO_SHIFT) {
			NL_SET_ERR_MSG_ATTR(extack, prio,
					    "VLAN priority must be below 8");
			return -EINVAL;
		}
		key->vlan.vlan_priority = nla_get_u8(prio);
		mask->vlan.vlan_priority = VLAN_PRIO_MASK >> VLAN_PRIO_SHIFT;
	}
	if (ethtype) {
		if (eth_type_vlan(nla_get_be16(ethtype))) {
			NL_SET_ERR_MSG_ATTR(extack, ethtype,
					    "Stacked VLAN tags are not supported");
			return -EOPNOTSUPP;
		}
		key->basic.n_proto = nla_get_be16(ethtype);
		mask->basic.n_proto = htons(0xffff);
	}
	return 0;
}

static int fl_set_key_val(struct nlattr **tb, const struct fl_key_desc *desc,
			  struct fl_flow_key *key, struct fl_flow_key *mask,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *val = tb[desc->type];
	struct nlattr *msk = desc->mask_type ? tb[desc->mask_type] : NULL;
	u8 *mask_member = (u8 *)mask + desc->offset;

	if (!val) {
		if (!msk)
			return 0;
		NL_SET_ERR_MSG_ATTR(extack, msk, "Mask given without its key");
		return -EINVAL;
	}
	if (!fl_need_met(key, mask, desc->need)) {
		fl_set_err(extack, val, fl_need_msg[desc->need]);
		return -EINVAL;
	}

	memcpy((u8 *)key + desc->offset, nla_data(val), desc->len);
	if (msk)
		memcpy(mask_member, nla_data(msk), desc->len);
	else
		memset(mask_member, 0xff, desc->len);
	return 0;
}

static int fl_set_key(struct net *net, struct nlattr **tb,
		      struct fl_flow_key *key, struct fl_flow_key *mask,
		      struct netlink_ext_ack *extack)
{
	int i, err;

	err = fl_set_key_indev(net, tb, key, mask, extack);
	if (err)
		return err;

	fl_set_key_eth_type(tb, key, mask);
	err = fl_set_key_vlan(tb, key, mask, extack);
	if (err)
		return err;

	for (i = 0; i < ARRAY_SIZE(fl_keys); i++) {
		err = fl_set_key_val(tb, &fl_keys[i], key, mask, extack);
		if (err)
			return err;
	}
	return 0;
}

/* Parses everything but the handle; nothing is visible to classify yet */
static struct cls_fl_filter *fl_filter_create(struct net *net,
					      struct tcf_proto *tp,
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

	err = tcf_exts_init(&f->exts, net, TCA_FLOWER_ACT, 0);
	if (err)
		goto err_discard;

	err = fl_set_flags(tb, &f->flags, extack);
	if (err)
		goto err_discard;

	err = fl_set_key(net, tb, &f->key, &mask->key, extack);
	if (err)
		goto err_discard;

	err = tcf_exts_validate_ex(net, tp, tb, rate, &f->exts, flags,
				   f->flags, extack);
	if (err < 0)
		goto err_discard;

	if (tb[TCA_FLOWER_CLASSID])
		f->res.classid = nla_get_u32(tb[TCA_FLOWER_CLASSID]);
	return f;

err_discard:
	fl_filter_discard(f);
	return ERR_PTR(err);
}

static void fl_mask_update_range(struct fl_flow_mask *mask)
{
	const u8 *bytes = (const u8 *)&mask->key;
	size_t size = sizeof(mask->key);
	const u8 *first = memchr_inv(bytes, 0, size);
	size_t last = size - 1;

	if (!first) {
		/* Matches everything: hash one all-zero long */
		mask->range.start = 0;
		mask->range.end = sizeof(long);
		return;
	}

	while (!bytes[last])
		last--;
	mask->range.start = rounddown(first - bytes, sizeof(long));
	mask->range.end = roundup(last + 1, sizeof(long));
}

static void fl_init_dissector(struct fl_flow_mask *mask)
{
	struct flow_dissector_key keys[ARRAY_SIZE(fl_dissector_keys)];
	const u8 *bytes = (const u8 *)&mask->key;
	unsigned int i, cnt = 0;

	for (i = 0; i < ARRAY_SIZE(fl_dissector_keys); i++) {
		const struct fl_dissector_key *dk = &fl_dissector_keys[i];

		/* The dissector itself needs the control and basic keys */
		if (dk->id != FLOW_DISSECTOR_KEY_CONTROL &&
		    dk->id != FLOW_DISSECTOR_KEY_BASIC &&
		    !memchr_inv(bytes + dk->offset, 0, dk->len))
			continue;
		keys[cnt].key_id = dk->id;
		keys[cnt].offset = dk->offset;
		cnt++;
	}
	skb_flow_dissector_init(&mask->dissector, keys, cnt);
}

/* Make @mask the instance's: the hashtable keys on the masked range.  The
 * caller publishes head->mask once the first filter is in the table.
 */
static int fl_mask_install(struct cls_fl_head *head, struct fl_flow_mask *mask)
{
	fl_mask_update_range(mask);
	fl_init_dissector(mask);
	mask->ht_params = (struct rhashtable_params) {
		.head_offset = offsetof(struct cls_fl_filter, ht_node),
		.key_offset = offsetof(struct cls_fl_filter, mkey) +
			      mask->range.start,
		.key_len = fl_mask_range(mask),
		.automatic_shrinking = true,
	};
	return rhashtable_init(&head->ht, &mask->ht_params);
}

static int fl_mask_check(const struct fl_flow_mask *cur,
			 const struct fl_flow_mask *mask,
			 struct netlink_ext_ack *extack)
{
	if (memcmp(&cur->key, &mask->key, sizeof(cur->key))) {
		NL_SET_ERR_MSG(extack,
			       "Mask differs from the mask of this flower instance: one mask per prio");
		return -EINVAL;
	}
	return 0;
}

static int fl_handle_assign(struct cls_fl_head *head,
			    struct cls_fl_filter *fold,
			    struct cls_fl_filter *fnew, u32 handle,
			    struct netlink_ext_ack *extack)
{
	u32 max = handle ?: INT_MAX;
	int err;

	if (fold) {
		fnew->handle = fold->handle;
		return 0;
	}

	if (!handle)
		handle = 1;
	err = idr_alloc_u32(&head->handle_idr, fnew, &handle, max, GFP_KERNEL);
	if (err) {
		NL_SET_ERR_MSG(extack, "No free flower filter handle");
		return err;
	}
	fnew->handle = handle;
	return 0;
}

static int fl_ht_insert(struct cls_fl_head *head,
			const struct fl_flow_mask *mask,
			struct cls_fl_filter *fold, struct cls_fl_filter *fnew,
			struct netlink_ext_ack *extack)
{
	int err;

	/* Same key: swap in place, so that lookups find one of the two */
	if (fold && !memcmp(fl_key_start(&fold->mkey, mask),
			    fl_key_start(&fnew->mkey, mask),
			    fl_mask_range(mask)))
		return rhashtable_replace_fast(&head->ht, &fold->ht_node,
					       &fnew->ht_node, mask->ht_params);

	err = rhashtable_lookup_insert_fast(&head->ht, &fnew->ht_node,
					    mask->ht_params);
	if (err == -EEXIST)
		NL_SET_ERR_MSG(extack,
			       "A filter with the same key exists in this flower instance");
	if (err)
		return err;

	if (fold)
		rhashtable_remove_fast(&head->ht, &fold->ht_node,
				       mask->ht_params);
	return 0;
}

/* Adds a filter, or replaces @*arg, from already validated attributes */
static int fl_change_filter(struct net *net, struct tcf_proto *tp,
			    unsigned long base, u32 handle, struct nlattr **tb,
			    struct nlattr *rate, void **arg, u32 flags,
			    struct netlink_ext_ack *extack)
{
	struct cls_fl_head *head = rtnl_dereference(tp->root);
	struct fl_flow_mask *cur = rtnl_dereference(head->mask);
	struct cls_fl_filter *fold = *arg;
	struct cls_fl_filter *fnew;
	struct fl_flow_mask *mask;
	int err;

	if (fold && handle && fold->handle != handle) {
		NL_SET_ERR_MSG(extack, "Handle does not match the filter to replace");
		return -EINVAL;
	}

	mask = kzalloc(sizeof(*mask), GFP_KERNEL);
	if (!mask)
		return -ENOBUFS;

	fnew = fl_filter_create(net, tp, tb, rate, mask, flags, extack);
	if (IS_ERR(fnew)) {
		err = PTR_ERR(fnew);
		goto err_mask;
	}

	err = cur ? fl_mask_check(cur, mask, extack) :
		    fl_mask_install(head, mask);
	if (err)
		goto err_filter;
	fl_set_masked_key(&fnew->mkey, &fnew->key, cur ?: mask);

	err = fl_handle_assign(head, fold, fnew, handle, extack);
	if (err)
		goto err_ht;

	if (fnew->res.classid)
		tcf_bind_filter(tp, &fnew->res, base);

	err = fl_ht_insert(head, cur ?: mask, fold, fnew, extack);
	if (err)
		goto err_handle;

	if (fold) {
		idr_replace(&head->handle_idr, fnew, fnew->handle);
		fl_filter_release(tp, fold);
	}
	if (cur)
		kfree(mask);
	else
		rcu_assign_pointer(head->mask, mask);

	*arg = fnew;
	return 0;

err_handle:
	tcf_unbind_filter(tp, &fnew->res);
	if (!fold)
		idr_remove(&head->handle_idr, fnew->handle);
err_ht:
	if (!cur)
		rhashtable_destroy(&head->ht);
err_filter:
	fl_filter_discard(fnew);
err_mask:
	kfree(mask);
	return err;
}

static int fl_change(struct net *net, struct sk_buff *in_skb,
		     struct tcf_proto *tp, unsigned long base, u32 handle,
		     struct nlattr **tca, void **arg, u32 flags,
		     struct netlink_ext_ack *extack)
{
	struct nlattr **tb;
	int err;

	/* Too big for the stack */
	tb = kcalloc(TCA_FLOWER_MAX + 1, sizeof(*tb), GFP_KERNEL);
	if (!tb)
		return -ENOBUFS;

	err = fl_parse_opts(tca[TCA_OPTIONS], tb, extack);
	if (!err)
		err = fl_change_filter(net, tp, base, handle, tb, tca[TCA_RATE],
				       arg, flags, extack);
	kfree(tb);
	return err;
}

static int fl_delete(struct tcf_proto *tp, void *arg, bool *last,
		     bool rtnl_held, struct netlink_ext_ack *extack)
{
	struct cls_fl_head *head = rtnl_dereference(tp->root);
	struct fl_flow_mask *mask = rtnl_dereference(head->mask);
	struct cls_fl_filter *f = arg;

	rhashtable_remove_fast(&head->ht, &f->ht_node, mask->ht_params);
	idr_remove(&head->handle_idr, f->handle);
	fl_filter_release(tp, f);

	*last = idr_is_empty(&head->handle_idr);
	return 0;
}

/* Walks in handle order; arg->cookie is the handle to resume from, so a
 * dump of many filters spread over many messages stays linear.
 */
static void fl_walk(struct tcf_proto *tp, struct tcf_walker *arg,
		    bool rtnl_held)
{
	struct cls_fl_head *head = rtnl_dereference(tp->root);
	unsigned long handle = arg->cookie;
	struct cls_fl_filter *f;

	for (f = idr_get_next_ul(&head->handle_idr, &handle); f;
	     handle++, f = idr_get_next_ul(&head->handle_idr, &handle)) {
		if (arg->fn(tp, f, arg) < 0) {
			arg->stop = 1;
			break;
		}
		arg->count++;
	}
	arg->cookie = handle;
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

static int fl_dump_key_eth_type(struct sk_buff *skb,
				const struct fl_flow_key *key,
				const struct fl_flow_key *mask)
{
	if (!mask->vlan.vlan_tpid) {
		if (mask->basic.n_proto &&
		    nla_put_be16(skb, TCA_FLOWER_KEY_ETH_TYPE,
				 key->basic.n_proto))
			return -EMSGSIZE;
		return 0;
	}

	if (nla_put_be16(skb, TCA_FLOWER_KEY_ETH_TYPE, key->vlan.vlan_tpid) ||
	    (mask->vlan.vlan_id &&
	     nla_put_u16(skb, TCA_FLOWER_KEY_VLAN_ID, key->vlan.vlan_id)) ||
	    (mask->vlan.vlan_priority &&
	     nla_put_u8(skb, TCA_FLOWER_KEY_VLAN_PRIO,
			key->vlan.vlan_priority)) ||
	    (mask->basic.n_proto &&
	     nla_put_be16(skb, TCA_FLOWER_KEY_VLAN_ETH_TYPE,
			  key->basic.n_proto)))
		return -EMSGSIZE;
	return 0;
}

static int fl_dump_key(struct sk_buff *skb, struct net *net,
		       const struct fl_flow_key *key,
		       const struct fl_flow_key *mask)
{
	int i;

	if (mask->indev_ifindex) {
		struct net_device *dev;

		dev = __dev_get_by_index(net, key->indev_ifindex);
		if (dev && nla_put_string(skb, TCA_FLOWER_INDEV, dev->name))
			return -EMSGSIZE;
	}

	if (fl_dump_key_eth_type(skb, key, mask))
		return -EMSGSIZE;

	for (i = 0; i < ARRAY_SIZE(fl_keys); i++)
		if (fl_dump_key_val(skb, &fl_keys[i], key, mask))
			return -EMSGSIZE;
	return 0;
}

/* No hardware offload: every filter runs in software only */
static int fl_dump_flags(struct sk_buff *skb, const struct cls_fl_filter *f)
{
	return nla_put_u32(skb, TCA_FLOWER_FLAGS,
			   f->flags | TCA_CLS_FLAGS_NOT_IN_HW);
}

static int fl_dump(struct net *net, struct tcf_proto *tp, void *fh,
		   struct sk_buff *skb, struct tcmsg *t, bool rtnl_held)
{
	struct cls_fl_head *head = rtnl_dereference(tp->root);
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

	if (fl_dump_key(skb, net, &f->key, &rtnl_dereference(head->mask)->key) ||
	    fl_dump_flags(skb, f) || tcf_exts_dump(skb, &f->exts))
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

	if (fl_dump_flags(skb, f) || tcf_exts_terse_dump(skb, &f->exts))
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

static struct tcf_proto_ops cls_fl_ops __read_mostly = {
	.kind		= "flower",
	.classify	= fl_classify,
	.init		= fl_init,
	.destroy	= fl_destroy,
	.get		= fl_get,
	.change		= fl_change,
	.delete		= fl_delete,
	.walk		= fl_walk,
	.dump		= fl_dump,
	.terse_dump	= fl_terse_dump,
	.bind_class	= fl_bind_class,
	.owner		= THIS_MODULE,
};

static void __init fl_init_attr_len(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(fl_keys); i++) {
		fl_attr_len[fl_keys[i].type] = fl_keys[i].len;
		if (fl_keys[i].mask_type)
			fl_attr_len[fl_keys[i].mask_type] = fl_keys[i].len;
	}
	for (i = 0; i < ARRAY_SIZE(fl_other_attrs); i++)
		fl_attr_len[fl_other_attrs[i].type] = fl_other_attrs[i].len;
}

static int __init cls_fl_init(void)
{
	fl_init_attr_len();
	return register_tcf_proto_ops(&cls_fl_ops);
}

static void __exit cls_fl_exit(void)
{
	unregister_tcf_proto_ops(&cls_fl_ops);
}

module_init(cls_fl_init);
module_exit(cls_fl_exit);

MODULE_DESCRIPTION("Flower classifier: one mask per instance, rhashtable lookup");
MODULE_VERSION("seed-6.1");
MODULE_LICENSE("GPL");
