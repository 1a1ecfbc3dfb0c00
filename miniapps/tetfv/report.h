/* report.h: tetfv's part of the report (report.c): its parameters, its results and its
 * checks, kit_main's describe and finish hooks. */
#ifndef TETFV_REPORT_H
#define TETFV_REPORT_H
#include "kit/report.h"
#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* kit_app.describe: the problem's parameters (params: the tetfv_params, ctx: the
 * tetfv_built) into the report's open `params` object. */
void tetfv_describe(const void *params, const void *ctx, const kit_variant *v, kit_json *pj);
/* kit_app.finish (ctx: the tetfv_built): the scheme's and the partition's figures and
 * MCUP/s, then every check of the final field of v's state (--verify) and --dump
 * (collective). */
void tetfv_finish(void *ctx, const kit_variant *v, void *st, const kit_timing *t, kit_report *rep);

#ifdef __cplusplus
}
#endif
#endif
