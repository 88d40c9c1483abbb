/* changes_check.h - SANDPROOF_REF_CHANGES=check (ref/changes.h): the sets
 * of changes the walk and the event source each reported, compared after
 * the run, the verdict appended as one JSON line to the file named by
 * SANDPROOF_REF_CHANGES_LOG:
 *   {"agree":true|false,"walk":N,"events":N,"note":"..."|null,
 *    "walk_only":["created /p",...],"events_only":[...]}
 * (at most 8 paths in each list).  A test switch: it costs both
 * mechanisms and the sets' memory (bounded: past 2 x 131072 entries a set
 * says so and the line's agree is false). */
#ifndef SANDPROOF_CHANGES_CHECK_H
#define SANDPROOF_CHANGES_CHECK_H

struct changes_set;

struct changes_set *changes_set_new(void);
/* op: 'c' created, 'm' modified, 'd' deleted */
void changes_set_add(struct changes_set *s, char op, const char *path);
void changes_set_free(struct changes_set *s);
/* Compare, append the line (nothing when the variable is unset). */
void changes_check_log(struct changes_set *walk, struct changes_set *events, const char *note);

#endif
