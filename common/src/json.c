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
static void puts_(kit_json *j, const char *s) {
  put(j, s, strlen(s));
}

void kit_json_init(kit_json *j) {
  memset(j, 0, sizeof *j);
  put(j, "", 0);
}
void kit_json_free(kit_json *j) {
  free(j->buf);
  memset(j, 0, sizeof *j);
}

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 if s does not start one. */
static size_t utf8_length(const unsigned char *s) {
  const unsigned char c = s[0];
  if (c < 0x80) return 1;
  if (c < 0xc2 || c > 0xf4) return 0; /* a continuation byte, an overlong lead, or too high */
  const size_t n = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
  /* The range of the second byte: E0 and F0 exclude overlong forms, ED the surrogates
   * (U+D800..U+DFFF), F4 what lies above U+10FFFF. */
  const unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
  const unsigned char hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
  if (s[1] < lo || s[1] > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (s[k] < 0x80 || s[k] > 0xbf) return 0;
  return n;
}

/* Valid UTF-8 is kept as it is. A byte that is not part of valid UTF-8 (a Latin-1 file name,
 * a stray byte in the environment) becomes \u00XX, XX the byte: the text stays valid JSON,
 * and, since the characters U+0080..U+00FF themselves are written as UTF-8, such an escape
 * can only stand for a raw byte, so the original bytes can be recovered (U+FFFD cannot). */
void kit_json_escape(kit_json *j, const char *s) {
  puts_(j, "\"");
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    const unsigned char c = *p;
    char tmp[8];
    if (c == '"' || c == '\\') {
      tmp[0] = '\\';
      tmp[1] = (char)c;
      put(j, tmp, 2);
      p++;
    } else if (c < 0x20) {
      snprintf(tmp, sizeof tmp, "\\u%04x", c);
      puts_(j, tmp);
      p++;
    } else {
      const size_t n = utf8_length(p);
      if (n == 0) {
        snprintf(tmp, sizeof tmp, "\\u%04x", c);
        puts_(j, tmp);
        p++;
      } else {
        put(j, (const char *)p, n);
        p += n;
      }
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

void kit_json_begin_object(kit_json *j, const char *key) {
  open_(j, key, "{");
}
void kit_json_begin_array(kit_json *j, const char *key) {
  open_(j, key, "[");
}
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

void kit_json_u64(kit_json *j, const char *key, unsigned long long value) {
  member(j, key);
  char tmp[32];
  snprintf(tmp, sizeof tmp, "%llu", value);
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
