/* json.c: minimal JSON writer (kit/json.h). */
#include "kit/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"

static void put(kit_json *j, const char *s, size_t n) {
  if (j->len + n + 1 > j->cap) {
    size_t cap = j->cap ? j->cap : 256;
    while (j->len + n + 1 > cap) cap *= 2;
    char *b = realloc(j->buf, cap);
    if (!b) kit_die(3, __FILE__, __LINE__, "out of memory in JSON writer");
    j->buf = b;
    j->cap = cap;
  }
  memcpy(j->buf + j->len, s, n);
  j->len += n;
  j->buf[j->len] = '\0';
}
static void puts_(kit_json *j, const char *s) { put(j, s, strlen(s)); }

void kit_json_init(kit_json *j) {
  memset(j, 0, sizeof *j);
  put(j, "", 0);
}
void kit_json_free(kit_json *j) {
  free(j->buf);
  memset(j, 0, sizeof *j);
}

void kit_json_escape(kit_json *j, const char *s) {
  puts_(j, "\"");
  for (; *s; ++s) {
    const unsigned char c = (unsigned char)*s;
    char tmp[8];
    if (c == '"' || c == '\\') {
      tmp[0] = '\\';
      tmp[1] = (char)c;
      put(j, tmp, 2);
    } else if (c < 0x20) {
      snprintf(tmp, sizeof tmp, "\\u%04x", c);
      puts_(j, tmp);
    } else {
      put(j, (const char *)&c, 1);
    }
  }
  puts_(j, "\"");
}

/* Comma and key before a member. */
static void member(kit_json *j, const char *key) {
  if (j->depth > 0 && j->count[j->depth - 1]++ > 0) puts_(j, ",");
  if (key) {
    kit_json_escape(j, key);
    puts_(j, ":");
  }
}

static void open_(kit_json *j, const char *key, const char *bracket) {
  member(j, key);
  puts_(j, bracket);
  if (j->depth >= KIT_JSON_DEPTH) kit_die(3, __FILE__, __LINE__, "JSON nesting too deep");
  j->count[j->depth++] = 0;
}

void kit_json_begin_object(kit_json *j, const char *key) { open_(j, key, "{"); }
void kit_json_begin_array(kit_json *j, const char *key) { open_(j, key, "["); }
void kit_json_end_object(kit_json *j) {
  j->depth--;
  puts_(j, "}");
}
void kit_json_end_array(kit_json *j) {
  j->depth--;
  puts_(j, "]");
}

void kit_json_string(kit_json *j, const char *key, const char *value) {
  member(j, key);
  if (value)
    kit_json_escape(j, value);
  else
    puts_(j, "null");
}

void kit_json_number(kit_json *j, const char *key, double value) {
  member(j, key);
  if (!isfinite(value)) {
    puts_(j, "null");
    return;
  }
  char tmp[40];
  snprintf(tmp, sizeof tmp, "%.17g", value);
  puts_(j, tmp);
}

void kit_json_int(kit_json *j, const char *key, long long value) {
  member(j, key);
  char tmp[32];
  snprintf(tmp, sizeof tmp, "%lld", value);
  puts_(j, tmp);
}

void kit_json_bool(kit_json *j, const char *key, int value) {
  member(j, key);
  puts_(j, value ? "true" : "false");
}

void kit_json_raw(kit_json *j, const char *key, const char *text) {
  member(j, key);
  puts_(j, text);
}
