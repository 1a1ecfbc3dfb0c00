/* report.h: tetfv's part of the report (report.c): its parameters, its results and its
 * checks, called from main.c's describe and finish hooks. */
#ifndef TETFV_REPORT_H
#define TETFV_REPORT_H
#include "kit/report.h"
#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The problem's parameters into the report's open `params` object. */
void tetfv_describe(const tetfv_params *p, const tetfv_built *b, kit_json *pj);
/* The scheme's and the partition's figures and MCUP/s (collective). */
void tetfv_results(const tetfv_built *b, const kit_timing *t, kit_report *rep);
/* The final field of v's state: every check (--verify) and --dump (collective). */
void tetfv_check_final(const tetfv_built *b, const kit_variant *v, void *st, kit_report *rep);

#ifdef __cplusplus
}
#endif
#endif
