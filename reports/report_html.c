/* report_html.c - the self-contained HTML report (report.h).
 *
 * One file, nothing fetched: inline CSS, inline SVG bars and one small inline
 * script (filters, expand/collapse) allowed by a per-file CSP nonce; the
 * Content-Security-Policy forbids every other source, so even a page saved
 * beside hostile files loads nothing from anywhere.  All text from the
 * database goes through report_esc().
 *
 * The matrix is <table id="matrix">; every (scenario, column) position is a
 * <td class="cell"> with data-verdict (a verdict or "none" when not run),
 * data-impact (the class of a fail, else "none"), data-scenario, data-os
 * and data-runner, so a browser test can count and
 * read cells.  Cells expand (<details>) into their evidence. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "report.h"

#define EV_MAX 16384                 /* bytes of one evidence body shown */
#define TITLE_MAX 300                /* bytes of observed/reason in a hover title */

static const char *const colours[RV_N] = {
	[RV_PASS] = "#b9e4bd", [RV_FAIL] = "#f4a6a6", [RV_SKIP] = "#e2e2e2",
	[RV_UNSUPPORTED] = "#cfdcf0", [RV_INCONCLUSIVE] = "#fcd39b",
	[RV_ERROR] = "#dcb6e6", [RV_NONE] = "#ffffff",
};

static const char css[] =
"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fafafa}"
"h1{font-size:1.5em;margin:0 0 .2em}h2{font-size:1.15em;margin:1.5em 0 .5em}"
".src{color:#555;margin:0}code,pre{font:12px/1.35 ui-monospace,monospace}"
"table{border-collapse:collapse;background:#fff}"
"th,td{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}"
"thead th{position:sticky;top:0;background:#f0f0f0;z-index:1}"
"tbody.area>tr.ah>th{background:#e8e8f0;font-size:1.05em}"
".scn-h{max-width:28em;font-weight:normal}.scn-h code{font-weight:bold}"
".cl{color:#666;font-size:11px;margin-left:.5em}.claim{color:#444;font-size:12px}"
"td.cell{min-width:7em;max-width:40em}td.cell.dim{opacity:.25}"
"td.v-none{color:#aaa;border-style:dashed}"
"summary{cursor:pointer}.vd{font-weight:bold}.t,.rep{color:#444;font-size:11px}"
".race{font-size:11px;border:1px solid #888;border-radius:3px;padding:0 3px;margin-left:3px}"
".race.low{background:#fff3cd;border-color:#c90}"
".ev{margin-top:4px}.ev dl{display:grid;grid-template-columns:auto 1fr;gap:0 .6em;margin:0 0 4px}"
".ev dt{color:#555}.ev dd{margin:0;overflow-wrap:anywhere}"
".evi .k{font-size:11px;font-weight:bold;color:#333}"
".evi pre{background:#f6f6f6;border:1px solid #ddd;padding:4px;margin:2px 0 6px;"
"white-space:pre-wrap;overflow-wrap:anywhere;max-height:24em;overflow:auto}"
"#filters fieldset{display:inline-block;margin:0 .6em .6em 0;border:1px solid #ccc}"
"#filters label{margin-right:.6em;white-space:nowrap}"
".sum td.n{text-align:right}.env pre{background:#fff;border:1px solid #ddd;padding:6px}"
".legend span{display:inline-block;padding:0 .5em;margin-right:.4em;border:1px solid #aaa}";

/* Filters hide a row whose every cell has an unchecked verdict or impact
 * class and dim such cells (a link ending in #impact=escape,exposure starts
 * with only those classes checked); areas hide their tbody.  Reads only data-* attributes and never
 * writes markup (no innerHTML), so it adds no injection path. */
static const char js[] =
"(function(){\n"
"var f=document.getElementById('filters');\n"
"function on(sel,k){var m={};f.querySelectorAll(sel).forEach(function(i){m[i.getAttribute(k)]=i.checked;});return m;}\n"
"function apply(){\n"
" var a=on('input[data-area]','data-area'),v=on('input[data-v]','data-v'),m=on('input[data-impact]','data-impact');\n"
" document.querySelectorAll('#matrix tbody.area').forEach(function(tb){\n"
"  var showArea=a[tb.getAttribute('data-area')]!==false,any=false;\n"
"  tb.querySelectorAll('tr.scn').forEach(function(tr){\n"
"   var vis=false;\n"
"   tr.querySelectorAll('td.cell').forEach(function(td){var ok=v[td.getAttribute('data-verdict')]!==false&&m[td.getAttribute('data-impact')]!==false;td.classList.toggle('dim',!ok);if(ok)vis=true;});\n"
"   tr.hidden=!vis;if(vis)any=true;});\n"
"  tb.hidden=!(showArea&&any);});\n"
"}\n"
"f.addEventListener('change',apply);\n"
"var h=/impact=([a-z,]+)/.exec(location.hash);\n"
"if(h){var w=h[1].split(',');f.querySelectorAll('input[data-impact]').forEach(function(i){i.checked=w.indexOf(i.getAttribute('data-impact'))>=0;});apply();}\n"
"function all(o){document.querySelectorAll('#matrix details').forEach(function(d){d.open=o;});}\n"
"document.getElementById('expand').addEventListener('click',function(){all(true);});\n"
"document.getElementById('collapse').addEventListener('click',function(){all(false);});\n"
"})();\n";

static void put_ms(FILE *f, int64_t ms)
{
	if (ms < 0)
		fputs("-", f);
	else if (ms < 1000)
		fprintf(f, "%lld ms", (long long)ms);
	else
		fprintf(f, "%.1f s", (double)ms / 1000.0);
}

/* A horizontal bar of a column's verdict counts. */
static void put_bar(FILE *f, const struct report_col *c, size_t rows)
{
	double x = 0, w = 200;

	fprintf(f, "<svg width=\"200\" height=\"12\" role=\"img\" aria-label=\"verdicts\">");
	for (int v = 0; v < RV_N && rows; v++) {
		double cw = w * c->n[v] / (double)rows;

		if (c->n[v])
			fprintf(f, "<rect x=\"%.2f\" y=\"0\" width=\"%.2f\" height=\"12\" fill=\"%s\""
				" stroke=\"#888\" stroke-width=\"0.5\"><title>%s %u</title></rect>",
				x, cw, colours[v], report_verdict_name(v), c->n[v]);
		x += cw;
	}
	fprintf(f, "</svg>");
}

/* The nonce only has to be unknown to whoever wrote the evidence, before
 * the render: escaping already keeps their text out of markup and the CSP is
 * a second wall, so a fallback without entropy is acceptable. */
static void make_nonce(char nonce[33])
{
	unsigned char raw[16];

	if (getentropy(raw, sizeof raw) != 0)
		memset(raw, 0x5a, sizeof raw);
	for (size_t i = 0; i < sizeof raw; i++)
		snprintf(nonce + 2 * i, 3, "%02x", raw[i]);
}

static void put_head(const struct report_set *s, const char *nonce, FILE *f)
{
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"style-src 'unsafe-inline'; img-src data:; script-src 'nonce-%s'\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<title>sandproof results</title>\n<style>%s</style>\n</head>\n<body>\n",
		nonce, css);
	fprintf(f, "<header><h1>sandproof results</h1><p class=\"src\">");
	report_esc(f, s->source, 0, 0);
	fprintf(f, " &middot; %zu scenarios &times; %zu columns (latest run per %s)</p></header>\n",
		s->n_scens, s->n_cols, s->multi_os ? "OS and runner" : "runner");
}

/* Per column, its fails by impact class (escapes first), each with its
 * scenarios: what a reader acts on comes before the verdict counts. */
static void put_impact(const struct report_set *s, FILE *f)
{
	char label[256];
	size_t n[STORE_N_IMPACTS];

	fprintf(f, "<section id=\"impact\"><h2>Impact of the failures</h2>\n<table class=\"sum\"><thead><tr><th>%s</th>",
		s->multi_os ? "OS/runner" : "runner");
	for (int c = 0; c < STORE_N_IMPACTS; c++)
		fprintf(f, "<th>%s</th>", store_impacts[c]);
	fprintf(f, "</tr></thead><tbody>\n");
	for (size_t j = 0; j < s->n_cols; j++) {
		report_impact_count(s, j, n);
		fprintf(f, "<tr data-runner=\"");
		report_esc(f, s->cols[j].runner, 0, 1);
		fprintf(f, "\"><th>");
		report_esc(f, report_col_label(s, j, label, sizeof label), 0, 0);
		fprintf(f, "</th>");
		for (int c = 0; c < STORE_N_IMPACTS; c++) {
			size_t k = 0;

			fprintf(f, "<td class=\"n\" data-impact=\"%s\">%zu", store_impacts[c], n[c]);
			for (size_t i = 0; i < s->n_scens; i++)
				if (report_impact_of(report_cell(s, i, j)) == c) {
					fprintf(f, "%s", k++ ? ", " : "<br><span class=\"t\">");
					report_esc(f, s->scens[i].id, 0, 0);
				}
			fprintf(f, "%s</td>", k ? "</span>" : "");
		}
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</tbody></table></section>\n");
}

static void put_summary(const struct report_set *s, FILE *f)
{
	char label[256];

	fprintf(f, "<section id=\"summary\"><h2>Summary</h2>\n<table class=\"sum\"><thead><tr><th>%s</th>",
		s->multi_os ? "OS/runner" : "runner");
	for (int v = 0; v < RV_N; v++)
		fprintf(f, "<th>%s</th>", report_verdict_name(v));
	fprintf(f, "<th>time</th><th>run</th><th></th></tr></thead><tbody>\n");
	for (size_t j = 0; j < s->n_cols; j++) {
		const struct report_col *c = &s->cols[j];

		fprintf(f, "<tr><th>");
		report_esc(f, report_col_label(s, j, label, sizeof label), 0, 0);
		fprintf(f, "</th>");
		for (int v = 0; v < RV_N; v++)
			fprintf(f, "<td class=\"n\">%u</td>", c->n[v]);
		fprintf(f, "<td class=\"n\">");
		put_ms(f, c->total_ms);
		fprintf(f, "</td><td>");
		if (c->run != (size_t)-1)
			fprintf(f, "<a href=\"#run-%lld\">#%lld</a>%s", (long long)s->runs[c->run].id,
				(long long)s->runs[c->run].id, c->older_runs ? " (latest)" : "");
		fprintf(f, "</td><td>");
		put_bar(f, c, s->n_scens);
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</tbody></table>\n<p class=\"legend\">");
	for (int v = 0; v < RV_N; v++)
		fprintf(f, "<span style=\"background:%s\">%s</span>", colours[v], report_verdict_name(v));
	fprintf(f, "</p></section>\n");
}

static void put_filters(const struct report_set *s, FILE *f)
{
	fprintf(f, "<section id=\"filters\"><h2>Filters</h2><fieldset><legend>area</legend>");
	for (size_t i = 0; i < s->n_scens; i++) {
		if (i && !strcmp(s->scens[i].area, s->scens[i - 1].area))
			continue;
		fprintf(f, "<label><input type=\"checkbox\" checked data-area=\"");
		report_esc(f, s->scens[i].area, 0, 1);
		fprintf(f, "\"> ");
		report_esc(f, s->scens[i].area, 0, 0);
		fprintf(f, "</label>");
	}
	fprintf(f, "</fieldset><fieldset><legend>verdict</legend>");
	for (int v = 0; v < RV_N; v++)
		fprintf(f, "<label style=\"background:%s\"><input type=\"checkbox\" checked data-v=\"%s\"> %s</label>",
			colours[v], report_verdict_name(v), report_verdict_name(v));
	fprintf(f, "</fieldset><fieldset><legend>impact</legend>");
	for (int c = 0; c < STORE_N_IMPACTS; c++)
		fprintf(f, "<label><input type=\"checkbox\" checked data-impact=\"%s\"> %s</label>",
			store_impacts[c], store_impacts[c]);
	fprintf(f, "<label><input type=\"checkbox\" checked data-impact=\"none\"> not a failure</label>");
	fprintf(f, "</fieldset><button type=\"button\" id=\"expand\">expand all</button> "
		"<button type=\"button\" id=\"collapse\">collapse all</button></section>\n");
}

static void put_dd(FILE *f, const char *dt, const char *val)
{
	if (!val)
		return;
	fprintf(f, "<dt>%s</dt><dd>", dt);
	report_esc(f, val, 0, 0);
	fprintf(f, "</dd>");
}

static void put_cell(const struct report_set *s, size_t i, size_t j, FILE *f)
{
	const struct report_res *r = report_cell(s, i, j);
	const struct report_col *c = &s->cols[j];
	enum report_verdict v = r ? r->v : RV_NONE;
	int imp = report_impact_of(r);

	fprintf(f, "<td class=\"cell v-%s\" style=\"background:%s\" data-verdict=\"%s\" data-scenario=\"",
		report_verdict_name(v), colours[v], report_verdict_name(v));
	report_esc(f, s->scens[i].id, 0, 1);
	fprintf(f, "\" data-os=\"");
	report_esc(f, c->os, 0, 1);
	fprintf(f, "\" data-runner=\"");
	report_esc(f, c->runner, 0, 1);
	fprintf(f, "\" data-impact=\"%s\"", imp >= 0 ? store_impacts[imp] : "none");
	if (!r) {
		fprintf(f, " title=\"not run\">&ndash;</td>");
		return;
	}
	fprintf(f, " title=\"");
	report_esc(f, r->verdict, 0, 1);
	if (r->observed) {
		fprintf(f, " &#183; observed: ");
		report_esc(f, r->observed, TITLE_MAX, 1);
	}
	if (r->reason) {
		fprintf(f, " &#183; reason: ");
		report_esc(f, r->reason, TITLE_MAX, 1);
	}
	if (imp >= 0)
		fprintf(f, " &#183; impact: %s", store_impacts[imp]);
	fprintf(f, "\"><details><summary><span class=\"vd\">");
	report_esc(f, r->verdict, 0, 0);
	if (imp >= 0)
		fprintf(f, " (%s)", store_impacts[imp]);
	fprintf(f, "</span> <span class=\"t\">");
	put_ms(f, r->duration_ms);
	fprintf(f, "</span>");
	if (report_is_race(r)) {
		fprintf(f, " <span class=\"race%s\" title=\"race power: windows hit / attempts (minimum)\">"
			"race %lld/%lld",
			r->min_windows >= 0 && r->windows_hit < r->min_windows ? " low" : "",
			(long long)(r->windows_hit > 0 ? r->windows_hit : 0), (long long)r->attempts);
		if (r->min_windows >= 0)
			fprintf(f, " min %lld", (long long)r->min_windows);
		fprintf(f, "</span>");
	}
	if (r->repeats > 1)
		fprintf(f, " <span class=\"rep\">(worst of %u)</span>", r->repeats);
	fprintf(f, "</summary><div class=\"ev\"><dl>");
	put_dd(f, "expected", r->expected);
	put_dd(f, "observed", r->observed);
	put_dd(f, "impact", r->impact);
	put_dd(f, "reason", r->reason);
	if (report_is_race(r)) {
		char power[160];

		put_dd(f, "race power", report_power(r, power, sizeof power));
	} else {
		fprintf(f, "<dt>attempts</dt><dd>%lld</dd><dt>seed</dt><dd>%lld</dd>",
			(long long)r->attempts, (long long)r->seed);
	}
	put_dd(f, "finished", r->finished_at);
	fprintf(f, "</dl>");
	for (size_t k = 0; k < r->n_ev; k++) {
		size_t cut;

		fprintf(f, "<div class=\"evi\"><span class=\"k\">");
		report_esc(f, r->ev[k].kind, 0, 0);
		fprintf(f, "</span><pre>");
		cut = report_esc(f, r->ev[k].body, EV_MAX, 0);
		if (cut)
			fprintf(f, "\n&hellip; (%zu more bytes in the database)", cut);
		fprintf(f, "</pre></div>");
	}
	fprintf(f, "</div></details></td>");
}

static void put_matrix(const struct report_set *s, FILE *f)
{
	char label[256];

	fprintf(f, "<h2>Matrix</h2>\n<table id=\"matrix\"><thead><tr><th>scenario</th>");
	for (size_t j = 0; j < s->n_cols; j++) {
		fprintf(f, "<th data-os=\"");
		report_esc(f, s->cols[j].os, 0, 1);
		fprintf(f, "\" data-runner=\"");
		report_esc(f, s->cols[j].runner, 0, 1);
		fprintf(f, "\">");
		report_esc(f, report_col_label(s, j, label, sizeof label), 0, 0);
		fprintf(f, "</th>");
	}
	fprintf(f, "</tr></thead>\n");
	for (size_t i = 0; i < s->n_scens; i++) {
		const struct report_scen *sc = &s->scens[i];

		if (i == 0 || strcmp(sc->area, s->scens[i - 1].area)) {
			if (i)
				fprintf(f, "</tbody>\n");
			fprintf(f, "<tbody class=\"area\" data-area=\"");
			report_esc(f, sc->area, 0, 1);
			fprintf(f, "\"><tr class=\"ah\"><th colspan=\"%zu\">", s->n_cols + 1);
			report_esc(f, sc->area, 0, 0);
			fprintf(f, "</th></tr>\n");
		}
		fprintf(f, "<tr class=\"scn\"><th class=\"scn-h\"><code>");
		report_esc(f, sc->id, 0, 0);
		fprintf(f, "</code>");
		if (sc->clauses) {
			fprintf(f, "<span class=\"cl\">");
			report_esc(f, sc->clauses, 0, 0);
			fprintf(f, "</span>");
		}
		if (sc->claim) {
			fprintf(f, "<div class=\"claim\">");
			report_esc(f, sc->claim, 0, 0);
			fprintf(f, "</div>");
		}
		fprintf(f, "</th>");
		for (size_t j = 0; j < s->n_cols; j++)
			put_cell(s, i, j, f);
		fprintf(f, "</tr>\n");
	}
	if (s->n_scens)
		fprintf(f, "</tbody>\n");
	fprintf(f, "<tfoot><tr><th>total time</th>");
	for (size_t j = 0; j < s->n_cols; j++) {
		fprintf(f, "<td>");
		put_ms(f, s->cols[j].total_ms);
		fprintf(f, "</td>");
	}
	fprintf(f, "</tr></tfoot></table>\n");
}

static void put_env(FILE *f, const char *env_json)
{
	cJSON *o = env_json ? cJSON_Parse(env_json) : NULL;
	char *pretty = o ? cJSON_Print(o) : NULL;

	fprintf(f, "<div class=\"env\"><b>environment fingerprint</b><pre>");
	report_esc(f, pretty ? pretty : env_json ? env_json : "(none recorded)", 0, 0);
	fprintf(f, "</pre></div>");
	free(pretty);
	cJSON_Delete(o);
}

static void put_runs(const struct report_set *s, FILE *f)
{
	char label[256];

	fprintf(f, "<section id=\"runs\"><h2>Runs</h2>\n");
	for (size_t k = 0; k < s->n_runs; k++) {
		const struct report_run *r = &s->runs[k];
		int shown = 0;

		for (size_t j = 0; j < s->n_cols; j++)
			shown |= s->cols[j].run == k;
		if (!shown)
			continue;
		fprintf(f, "<details open id=\"run-%lld\"><summary><b>run #%lld</b> ",
			(long long)r->id, (long long)r->id);
		report_esc(f, r->os, 0, 0);
		fprintf(f, " &middot; shown in:");
		for (size_t j = 0; j < s->n_cols; j++)
			if (s->cols[j].run == k) {
				fprintf(f, " ");
				report_esc(f, report_col_label(s, j, label, sizeof label), 0, 0);
				if (s->cols[j].older_runs)
					fprintf(f, " (%u older run%s not shown)", s->cols[j].older_runs,
						s->cols[j].older_runs > 1 ? "s" : "");
			}
		fprintf(f, "</summary><div class=\"ev\"><dl>");
		put_dd(f, "started", r->started_at);
		put_dd(f, "finished", r->finished_at ? r->finished_at : "(not finished: killed or still running)");
		put_dd(f, "os", r->os);
		put_dd(f, "kernel", r->kernel);
		put_dd(f, "arch", r->arch);
		put_dd(f, "user", r->user);
		if (r->uid >= 0)
			fprintf(f, "<dt>uid</dt><dd>%lld</dd>", (long long)r->uid);
		put_dd(f, "sandproof", r->harness_version);
		put_dd(f, "git revision", r->git_revision);
		put_dd(f, "runners", r->runners);
		fprintf(f, "<dt>seed</dt><dd>%lld</dd>", (long long)r->seed);
		put_dd(f, "filter", r->filter);
		fprintf(f, "</dl>");
		put_env(f, r->env_json);
		fprintf(f, "</div></details>\n");
	}
	fprintf(f, "</section>\n");
}

int report_html(const struct report_set *s, FILE *f)
{
	char nonce[33];

	make_nonce(nonce);
	put_head(s, nonce, f);
	put_impact(s, f);
	put_summary(s, f);
	put_filters(s, f);
	put_matrix(s, f);
	report_explore_html(s, f);
	put_runs(s, f);
	fprintf(f, "<script nonce=\"%s\">\n%s</script>\n</body>\n</html>\n", nonce, js);
	return ferror(f) ? -EIO : 0;
}
