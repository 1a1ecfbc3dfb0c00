/* kit/json.h: a small JSON writer into a growable buffer (no dependencies).
 * Members are added with a key inside objects and with key NULL inside arrays. */
#ifndef KIT_JSON_H
#define KIT_JSON_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
#define KIT_JSON_DEPTH 16
typedef struct kit_json {
  char *buf; /* NUL-terminated text so far */
  size_t len, cap;
  int depth;                 /* open objects/arrays */
  int count[KIT_JSON_DEPTH]; /* members written at each depth (for commas) */
} kit_json;
void kit_json_init(kit_json *j);
void kit_json_free(kit_json *j);
void kit_json_begin_object(kit_json *j, const char *key);
void kit_json_end_object(kit_json *j);
void kit_json_begin_array(kit_json *j, const char *key);
void kit_json_end_array(kit_json *j);
void kit_json_string(kit_json *j, const char *key, const char *value); /* NULL: null */
void kit_json_number(kit_json *j, const char *key, double value);      /* non-finite: null */
void kit_json_int(kit_json *j, const char *key, long long value);
void kit_json_u64(kit_json *j, const char *key, unsigned long long value); /* seeds: every bit */
void kit_json_bool(kit_json *j, const char *key, int value);
/* Inserts already-formatted JSON text as a member value. */
void kit_json_raw(kit_json *j, const char *key, const char *text);
/* Appends a string with JSON escapes (internal use): valid JSON for any bytes; a byte that
 * is not valid UTF-8 becomes \u00XX (json.c says why). */
void kit_json_escape(kit_json *j, const char *s);
#ifdef __cplusplus
}
#endif
#endif
