/* wfp.c - network deny through the Windows Filtering Platform.
 *
 * Contract: when the plan denies the network, every filter of the plan is
 * added, in one transaction, to a dynamic WFP session
 * (FWPM_SESSION_FLAG_DYNAMIC): the filters exist exactly as long as the
 * session, so a runner that dies leaves none behind.  Each filter blocks
 * at its layer for processes whose token is granted FWP_ACTRL_MATCH_FILTER
 * by a descriptor naming the filter's SIDs (FWPM_CONDITION_ALE_USER_ID):
 * the sandbox account's user SID, which every access check of the
 * command's token sees enabled, and the capability SID, which only the
 * restricting check sees (platforms/windows/README.md, "Network deny"; the
 * model platforms/windows/model shows the condition holds for the command
 * under every reading and for no runner).  Adding filters needs an elevated
 * runner: not elevated, the run is refused (step "network", EPERM), never
 * run with the network open.  A layer or action this file does not know is
 * refused (EINVAL), not skipped.  That the filters really stop the command
 * is then checked where it runs, before it runs (canary.c). */
#include <errno.h>
#include <string.h>
#include <wchar.h>

#include <fwpmu.h>
#include <sddl.h>

#include "winenf.h"

/* mingw-w64's fwpmu.h declares the functions but not these documented
 * constants (Windows SDK fwpmu.h / fwpmtypes.h values). */
#define SP_FWPM_SESSION_FLAG_DYNAMIC 0x00000001u
static const GUID sp_cond_ale_user_id = {
	0xaf043a0a, 0xb34d, 0x4f86, {0x97, 0x9c, 0xc9, 0x03, 0x71, 0xaf, 0x6e, 0x66}};
static const GUID sp_connect_v4 = {
	0xc38d57d1, 0x05a7, 0x4c33, {0x90, 0x4f, 0x7f, 0xbc, 0xee, 0xe6, 0x0e, 0x82}};
static const GUID sp_connect_v6 = {
	0x4a72393b, 0x319f, 0x44bc, {0x84, 0xc3, 0xba, 0x54, 0xdc, 0xb3, 0xb6, 0xb4}};
static const GUID sp_recv_v4 = {
	0xe1cd9fe7, 0xf4b5, 0x4273, {0x96, 0xc0, 0x59, 0x2e, 0x48, 0x7b, 0x86, 0x50}};
static const GUID sp_recv_v6 = {
	0xa3b42c97, 0x9f04, 0x4672, {0xb8, 0x7e, 0xce, 0xe9, 0xc4, 0x83, 0x25, 0x7f}};
static const GUID sp_listen_v4 = {
	0x88bb5dad, 0x76d7, 0x4227, {0x9c, 0x71, 0xdf, 0x0a, 0x3e, 0xd7, 0xbe, 0x7e}};
static const GUID sp_listen_v6 = {
	0x7ac9de24, 0x17dd, 0x4814, {0xb4, 0xbd, 0xa9, 0xfb, 0xc9, 0x5a, 0x32, 0x1b}};
static const GUID sp_assign_v4 = {
	0x1247d66d, 0x0b60, 0x4a15, {0x8d, 0x44, 0x71, 0x55, 0xd0, 0xf5, 0x3a, 0x0c}};
static const GUID sp_assign_v6 = {
	0x55a650e1, 0x5f0a, 0x4eca, {0xa6, 0x53, 0x88, 0xf5, 0x3b, 0x26, 0xaa, 0x8c}};

struct layer_name {
	const char *name;
	const GUID *key;
};

static const struct layer_name layers[] = {
	{"FWPM_LAYER_ALE_AUTH_CONNECT_V4", &sp_connect_v4},
	{"FWPM_LAYER_ALE_AUTH_CONNECT_V6", &sp_connect_v6},
	{"FWPM_LAYER_ALE_AUTH_RECV_ACCEPT_V4", &sp_recv_v4},
	{"FWPM_LAYER_ALE_AUTH_RECV_ACCEPT_V6", &sp_recv_v6},
	{"FWPM_LAYER_ALE_AUTH_LISTEN_V4", &sp_listen_v4},
	{"FWPM_LAYER_ALE_AUTH_LISTEN_V6", &sp_listen_v6},
	{"FWPM_LAYER_ALE_RESOURCE_ASSIGNMENT_V4", &sp_assign_v4},
	{"FWPM_LAYER_ALE_RESOURCE_ASSIGNMENT_V6", &sp_assign_v6},
};

static const GUID *layer_key(const char *name)
{
	for (size_t i = 0; name && i < sizeof(layers) / sizeof(layers[0]); i++)
		if (strcmp(layers[i].name, name) == 0)
			return layers[i].key;
	return NULL;
}

/* A self-relative SD granting each SID of f FWP_ACTRL_MATCH_FILTER
 * (SDDL "CC" = 0x1): "O:SYG:SYD:(A;;CC;;;<sid>)...". */
static int match_sd(const struct winplan_filter *f, const struct wenf_sids *sids,
		    PSECURITY_DESCRIPTOR *sd, ULONG *len)
{
	wchar_t text[512];
	size_t at = (size_t)swprintf(text, 512, L"O:SYG:SYD:");

	for (size_t i = 0; i < f->n_sids; i++) {
		PSID sid = token_plan_sid(f->sids[i], sids);
		wchar_t *s = NULL;
		int n;

		if (!sid || !ConvertSidToStringSidW(sid, &s))
			return -EINVAL;
		n = swprintf(text + at, 512 - at, L"(A;;CC;;;%ls)", s);
		LocalFree(s);
		if (n < 0)
			return -EINVAL;
		at += (size_t)n;
	}
	if (!f->n_sids ||
	    !ConvertStringSecurityDescriptorToSecurityDescriptorW(text, SDDL_REVISION_1, sd, len))
		return -EINVAL;
	return 0;
}

/* One blocking filter at f's layer, matching f's SIDs. */
static int filter_add(HANDLE eng, const struct winplan_filter *f, const struct wenf_sids *sids,
		      struct wenf_error *e)
{
	FWPM_FILTER_CONDITION0 c;
	FWPM_FILTER0 flt;
	FWP_BYTE_BLOB sdb;
	PSECURITY_DESCRIPTOR sd = NULL;
	ULONG len = 0;
	const GUID *key = layer_key(f->layer);
	UINT64 id = 0;
	DWORD rc;

	if (!key || !f->action || strcmp(f->action, "block") != 0)
		return wenf_fail(e, "network", f->layer, EINVAL,
				 "filter layer or action this backend cannot apply: refused");
	if (match_sd(f, sids, &sd, &len) < 0)
		return wenf_fail(e, "network", f->layer, EINVAL, "cannot build the SID condition");
	sdb.size = len;
	sdb.data = (UINT8 *)sd;
	memset(&c, 0, sizeof(c));
	c.fieldKey = sp_cond_ale_user_id;
	c.matchType = FWP_MATCH_EQUAL;
	c.conditionValue.type = FWP_SECURITY_DESCRIPTOR_TYPE;
	c.conditionValue.sd = &sdb;
	memset(&flt, 0, sizeof(flt));
	flt.displayData.name = (wchar_t *)L"sandproof network deny";
	flt.layerKey = *key;
	flt.action.type = FWP_ACTION_BLOCK;
	flt.weight.type = FWP_EMPTY;
	flt.numFilterConditions = 1;
	flt.filterCondition = &c;
	rc = FwpmFilterAdd0(eng, &flt, NULL, &id);
	LocalFree(sd);
	if (rc != ERROR_SUCCESS)
		return wenf_fail(e, "network", f->layer, wenf_errno(rc),
				 "FwpmFilterAdd0: error 0x%08lx", (unsigned long)rc);
	return 0;
}

static int engine_open(UINT32 flags, HANDLE *eng)
{
	FWPM_SESSION0 s;

	memset(&s, 0, sizeof(s));
	s.flags = flags;
	s.displayData.name = (wchar_t *)L"sandproof";
	return (int)FwpmEngineOpen0(NULL, RPC_C_AUTHN_WINNT, NULL, &s, eng);
}

int wfp_apply(const struct winplan_filter *f, size_t n, const struct wenf_sids *sids,
	      struct wfp_session *s, struct wenf_error *e)
{
	DWORD rc;
	int r = 0;

	memset(s, 0, sizeof(*s));
	if (!token_is_elevated())
		return wenf_fail(e, "network", NULL, EPERM,
				 "network deny needs WFP filters, and adding them needs an "
				 "elevated runner: refused, nothing ran");
	rc = (DWORD)engine_open(SP_FWPM_SESSION_FLAG_DYNAMIC, &s->engine);
	if (rc != ERROR_SUCCESS) {
		s->engine = NULL;
		return wenf_fail(e, "network", NULL, wenf_errno(rc),
				 "FwpmEngineOpen0: error 0x%08lx", (unsigned long)rc);
	}
	rc = FwpmTransactionBegin0(s->engine, 0);
	if (rc != ERROR_SUCCESS)
		r = wenf_fail(e, "network", NULL, wenf_errno(rc),
			      "FwpmTransactionBegin0: error 0x%08lx", (unsigned long)rc);
	for (size_t i = 0; r == 0 && i < n; i++)
		if ((r = filter_add(s->engine, &f[i], sids, e)) == 0)
			s->added++;
	if (r == 0 && (rc = FwpmTransactionCommit0(s->engine)) != ERROR_SUCCESS)
		r = wenf_fail(e, "network", NULL, wenf_errno(rc),
			      "FwpmTransactionCommit0: error 0x%08lx", (unsigned long)rc);
	if (r < 0) {
		FwpmTransactionAbort0(s->engine);
		wfp_close(s);
	}
	return r;
}

void wfp_close(struct wfp_session *s)
{
	if (s->engine)
		FwpmEngineClose0(s->engine);
	s->engine = NULL;
	s->added = 0;
}

int wfp_reachable(struct wenf_error *e)
{
	HANDLE eng = NULL;
	DWORD rc = (DWORD)engine_open(SP_FWPM_SESSION_FLAG_DYNAMIC, &eng);

	if (rc != ERROR_SUCCESS)
		return wenf_fail(e, "network", NULL, wenf_errno(rc),
				 "FwpmEngineOpen0: error 0x%08lx", (unsigned long)rc);
	FwpmEngineClose0(eng);
	return 0;
}
