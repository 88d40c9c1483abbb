/* winplan_text.c - the plan as stable, reviewable text (winplan.h). */
#include <errno.h>
#include <stdio.h>

#include "winplan.h"

struct bitname {
	uint32_t bit;
	const char *name;
};

static const struct bitname mask_names[] = {
	{WINPLAN_FILE_READ_DATA, "READ_DATA"},
	{WINPLAN_FILE_WRITE_DATA, "WRITE_DATA"},
	{WINPLAN_FILE_APPEND_DATA, "APPEND_DATA"},
	{WINPLAN_FILE_READ_EA, "READ_EA"},
	{WINPLAN_FILE_WRITE_EA, "WRITE_EA"},
	{WINPLAN_FILE_EXECUTE, "EXECUTE"},
	{WINPLAN_FILE_DELETE_CHILD, "DELETE_CHILD"},
	{WINPLAN_FILE_READ_ATTRIBUTES, "READ_ATTRIBUTES"},
	{WINPLAN_FILE_WRITE_ATTRIBUTES, "WRITE_ATTRIBUTES"},
	{WINPLAN_DELETE, "DELETE"},
	{WINPLAN_READ_CONTROL, "READ_CONTROL"},
	{WINPLAN_WRITE_DAC, "WRITE_DAC"},
	{WINPLAN_WRITE_OWNER, "WRITE_OWNER"},
	{WINPLAN_SYNCHRONIZE, "SYNCHRONIZE"},
	{0, NULL},
};

static const struct bitname inherit_names[] = {
	{WINPLAN_OBJECT_INHERIT, "OBJECT_INHERIT"},
	{WINPLAN_CONTAINER_INHERIT, "CONTAINER_INHERIT"},
	{WINPLAN_NO_PROPAGATE, "NO_PROPAGATE"},
	{WINPLAN_INHERIT_ONLY, "INHERIT_ONLY"},
	{0, NULL},
};

static const struct bitname job_ui_names[] = {
	{WINPLAN_JOB_UI_HANDLES, "HANDLES"},
	{WINPLAN_JOB_UI_READCLIPBOARD, "READCLIPBOARD"},
	{WINPLAN_JOB_UI_WRITECLIPBOARD, "WRITECLIPBOARD"},
	{WINPLAN_JOB_UI_SYSTEMPARAMETERS, "SYSTEMPARAMETERS"},
	{WINPLAN_JOB_UI_DISPLAYSETTINGS, "DISPLAYSETTINGS"},
	{WINPLAN_JOB_UI_GLOBALATOMS, "GLOBALATOMS"},
	{WINPLAN_JOB_UI_DESKTOP, "DESKTOP"},
	{WINPLAN_JOB_UI_EXITWINDOWS, "EXITWINDOWS"},
	{0, NULL},
};

static const struct bitname token_names[] = {
	{WINPLAN_DISABLE_MAX_PRIVILEGE, "DISABLE_MAX_PRIVILEGE"},
	{WINPLAN_SANDBOX_INERT, "SANDBOX_INERT"},
	{WINPLAN_LUA_TOKEN, "LUA_TOKEN"},
	{WINPLAN_WRITE_RESTRICTED, "WRITE_RESTRICTED"},
	{0, NULL},
};

const char *winplan_bit_name(enum winplan_bits kind, uint32_t bit)
{
	const struct bitname *names = kind == WINPLAN_BITS_MASK ? mask_names
				      : kind == WINPLAN_BITS_INHERIT ? inherit_names
				      : kind == WINPLAN_BITS_JOB_UI ? job_ui_names
								     : token_names;

	for (size_t i = 0; names[i].name; i++)
		if (names[i].bit == bit)
			return names[i].name;
	return NULL;
}

/* The set bits by name, lowest first, separated by '|'; "none" when v is
 * 0.  A bit with no name is printed in hex, so nothing goes unseen. */
static void print_bits(FILE *f, uint32_t v, enum winplan_bits kind)
{
	const char *s = "";

	if (v == 0) {
		fputs("none", f);
		return;
	}
	for (unsigned i = 0; i < 32; i++) {
		uint32_t bit = (uint32_t)1 << i;
		const char *name = winplan_bit_name(kind, bit);

		if (!(v & bit))
			continue;
		if (name)
			fprintf(f, "%s%s", s, name);
		else
			fprintf(f, "%s0x%x", s, (unsigned)bit);
		s = "|";
	}
}

static void print_sids(FILE *f, const enum winplan_sid *sids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : "", winplan_sid_name(sids[i]));
}

static void print_ace(FILE *f, size_t i, const struct winplan_ace *a)
{
	fprintf(f, "ace %zu: %s ", i + 1, a->effect == WINPLAN_DENY ? "deny" : "allow");
	print_sids(f, a->sids, a->n_sids);
	fprintf(f, " \"%s\"\n  mask    0x%08x ", a->path, (unsigned)a->mask);
	print_bits(f, a->mask, WINPLAN_BITS_MASK);
	fputs("\n  inherit ", f);
	print_bits(f, a->inherit, WINPLAN_BITS_INHERIT);
	fprintf(f, "\n  absent  %s\n  clause  %s\n  why     %s\n",
		winplan_absent_name(a->absent), a->clause, a->why);
}

const char *winplan_integrity_name(uint32_t il)
{
	switch (il) {
	case 0x1000u: return "low";
	case 0x2000u: return "medium";
	case 0x3000u: return "high";
	case 0x4000u: return "system";
	}
	return "?";
}

/* The recipe, then the token it makes of the reference base token. */
static void print_token(FILE *f, const struct winplan_token *t)
{
	struct winplan_listing ref, out;

	fprintf(f, "token\n  base        %s%s\n  flags       ", winplan_base_name(t->base),
		t->base == WINPLAN_BASE_ACCOUNT
			? " " WINPLAN_ACCOUNT " (a local user, not an administrator; batch logon)"
			: " (the runner's own token)");
	print_bits(f, t->flags, WINPLAN_BITS_TOKEN);
	fputs("\n  restricting", f);
	if (t->n_restricting == 0)
		fputs(" none", f);
	for (size_t i = 0; i < t->n_restricting; i++)
		fprintf(f, " %s", winplan_sid_name(t->restricting[i]));
	fputs("\n  groups      deny-only but:", f);
	for (size_t i = 0; i < t->n_keep_enabled; i++)
		fprintf(f, " %s", t->keep_enabled[i]);
	fprintf(f, "\n  privileges  deleted but: %s\n  integrity   %s (lowered, never raised)\n",
		t->keep_privilege, winplan_integrity_name(t->integrity));
	winplan_token_reference(t->base, &ref);
	winplan_token_apply(t, &ref, &out);
	fprintf(f, "token of %s\n  user %s %s\n", out.what, out.user,
		out.user_deny_only ? "deny-only" : "enabled");
	for (size_t i = 0; i < out.n_groups; i++)
		fprintf(f, "  group %s %s (%s)\n", out.groups[i].sid,
			(out.groups[i].attrs & WINPLAN_GROUP_DENY_ONLY) ? "deny-only"
			: (out.groups[i].attrs & WINPLAN_GROUP_ENABLED) ? "enabled" : "disabled",
			out.groups[i].name);
	for (size_t i = 0; i < out.n_privileges; i++)
		fprintf(f, "  privilege %s\n", out.privileges[i]);
	fprintf(f, "  integrity %s\n", winplan_integrity_name(out.integrity));
}

static void print_canaries(FILE *f, uint32_t c)
{
	if (c & WINPLAN_CANARY_NETWORK)
		fputs("canary network\n  why     before the command, a probe under its token and "
		      "job connects to a loopback listener the runner holds and sends it a UDP "
		      "datagram; either getting through refuses the run (step network:canary)\n", f);
	if (c & WINPLAN_CANARY_OUTSIDE)
		fputs("canary outside\n  why     before the command, a probe under its token "
		      "opens a file the runner made outside the grant for DELETE, WRITE_DAC and "
		      "WRITE_DATA; any granted refuses the run (step acl:canary)\n", f);
}

int winplan_print_text(const struct winplan *p, FILE *f)
{
	fputs("# sandproof Windows plan (platforms/windows/plan/README.md)\n", f);
	print_token(f, &p->token);
	fprintf(f, "aces %zu\n", p->n_aces);
	for (size_t i = 0; i < p->n_aces; i++)
		print_ace(f, i, &p->aces[i]);
	fprintf(f, "network %s\nfilters %zu\n", p->network_denied ? "deny" : "allow",
		p->n_filters);
	for (size_t i = 0; i < p->n_filters; i++) {
		fprintf(f, "filter %zu: %s ", i + 1, p->filters[i].action);
		print_sids(f, p->filters[i].sids, p->filters[i].n_sids);
		fprintf(f, " %s\n  clause  %s\n  why     %s\n", p->filters[i].layer,
			p->filters[i].clause, p->filters[i].why);
	}
	print_canaries(f, p->canaries);
	fputs("job\n  ui      ", f);
	print_bits(f, p->job_ui, WINPLAN_BITS_JOB_UI);
	fprintf(f, "\n  die_on_unhandled_exception %s\n  clause  PRIV-5\n",
		p->job_die_on_exception ? "yes" : "no");
	if (p->job_max_processes)
		fprintf(f, "  max_processes %llu\n  clause  LIM-2\n",
			(unsigned long long)p->job_max_processes);
	if (fflush(f) != 0 || ferror(f))
		return -EIO;
	return 0;
}
