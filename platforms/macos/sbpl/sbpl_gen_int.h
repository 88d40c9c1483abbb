/* sbpl_gen_int.h - the generator's plan, shared by its two halves:
 * sbpl_plan.c (request -> checked parameters and rule lists) and
 * sbpl_gen.c (plan -> text).  Private to sp_sbpl. */
#ifndef SANDPROOF_SBPL_GEN_INT_H
#define SANDPROOF_SBPL_GEN_INT_H

#include "sbpl_int.h"

/* Indexes into the plan's parameters. */
struct sbpl_ilist {
	size_t *v;
	size_t n;
	size_t cap;
};

/* Every path of the profile is a -D parameter (never spliced into the
 * text), and each rule list names the parameters it applies to. */
struct sbpl_plan {
	const struct request *req;
	const char *tag;      /* the message tag, NULL: none */
	struct sbpl_param *params;
	size_t n_params;
	size_t cap_params;
	bool read_all;        /* (allow file-read*): unrestricted or read_roots ["/"] */
	bool write_all;       /* (allow file-write*): unrestricted filesystem */
	bool platform_roots;  /* the fixed macOS system roots are readable */
	struct sbpl_ilist reads;       /* readable subpaths (not read_all) */
	struct sbpl_ilist writes;      /* writable subpaths: write roots, TEMP_DIR */
	struct sbpl_ilist write_denies;/* read-only subpaths, deny_write, protected */
	struct sbpl_ilist read_denies; /* deny_read */
	struct sbpl_ilist ancestors;   /* move-blocking literals */
	/* With a folding volume (opts->name_fold): the regex of every entry
	 * of the three lists above, in the same order (NAME_FOLD params). */
	unsigned fold;
	struct sbpl_ilist write_denies_fold, read_denies_fold, ancestors_fold;
	/* Everyday commands (sbpl_plan_everyday.c): the ancestors of every
	 * readable root whose metadata a lookup needs (restricted reads),
	 * the preferences daemon, ioctls on terminals. */
	struct sbpl_ilist metas;
	bool prefs;
	bool terminal_ioctl;
	size_t *anc_set;      /* open addressing: parameter index + 1, 0 empty */
	size_t anc_set_cap;   /* a power of two, at least twice ancestors.n */
};

/* The text being written from a plan (sbpl_gen.c writes the structure
 * and the denies, sbpl_gen_allow.c what everyday commands need). */
struct sbpl_gen {
	const struct sbpl_plan *pl;
	struct sbpl_buf b;
};

/* The end of a deny rule: its message tag when there is one. */
void sbpl_gen_deny_end(struct sbpl_gen *g);
/* Each name as (global-name "..."), then the rule's ")". */
void sbpl_gen_names(struct sbpl_gen *g, const char *const names[]);
/* Sysctls, launchd services, IPC, terminals: the allowances (after the
 * process rules) and the denies that keep them narrow (with the others). */
void sbpl_gen_everyday(struct sbpl_gen *g);
void sbpl_gen_everyday_denies(struct sbpl_gen *g);

/* A checked path as a new parameter NAME, its index appended to list;
 * 0 or -errno with err naming field (sbpl_plan.c). */
int sbpl_plan_param(struct sbpl_plan *pl, struct sbpl_ilist *list, const char *name,
		    const char *value, const char *field, char *err);
/* The everyday part of the plan (sbpl_plan_everyday.c): 0 or -ENOMEM. */
int sbpl_plan_everyday(struct sbpl_plan *pl, const struct sbpl_opts *opts, char *err);

/* Build the plan: 0, or -EINVAL/-EOPNOTSUPP/-ENAMETOOLONG/-ENOMEM with err
 * naming the field.  The plan owns its parameters until handed over. */
int sbpl_plan_build(struct sbpl_plan *pl, const struct request *req,
		    const struct sbpl_opts *opts, char *err);
void sbpl_plan_free(struct sbpl_plan *pl);

#endif
