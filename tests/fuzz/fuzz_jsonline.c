/*
** fuzz_jsonline.c — libFuzzer target: one line of JSON read by jsonline
** (cJSON where it reads as jansson would, jansson otherwise) and by
** jansson alone must agree: both refuse it, with jansson's reason, or
** both read the same tree as jansson sees it (of duplicate keys the last;
** integers exact). The one difference jsonline.h documents, an integral
** real read as an integer by sdb_jl_int, is not a disagreement of trees.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same(const cJSON *c, json_t *j);

static bool same_object(const cJSON *c, json_t *j) {
  if (!cJSON_IsObject(c)) return false;
  const char *k;
  json_t *v;
  json_object_foreach(j, k, v) {
    const cJSON *m = sdb_jl_get(c, k);
    if (!m || !same(m, v)) return false;
  }
  size_t n = 0;   /* as many distinct keys */
  for (const cJSON *m = c->child; m; m = m->next)
    if (!sdb_jl_repeated(c, m)) n++;
  return n == json_object_size(j);
}

static bool same(const cJSON *c, json_t *j) {
  switch (json_typeof(j)) {
    case JSON_OBJECT: return same_object(c, j);
    case JSON_ARRAY: {
      if (!cJSON_IsArray(c)) return false;
      size_t i = 0;
      const cJSON *m = c->child;
      for (; m && i < json_array_size(j); m = m->next, i++)
        if (!same(m, json_array_get(j, i))) return false;
      return !m && i == json_array_size(j);
    }
    case JSON_STRING:
      return cJSON_IsString(c) && strlen(c->valuestring) == json_string_length(j) &&
             !strcmp(c->valuestring, json_string_value(j));
    case JSON_INTEGER: {
      int64_t v;
      return sdb_jl_int(c, &v) && v == json_integer_value(j);
    }
    case JSON_REAL: return cJSON_IsNumber(c) && c->valuedouble == json_real_value(j);
    case JSON_TRUE: return cJSON_IsTrue(c);
    case JSON_FALSE: return cJSON_IsFalse(c);
    default: return cJSON_IsNull(c);
  }
}

static void die(const char *what, const char *line, const char *a, const char *b) {
  fprintf(stderr, "fuzz_jsonline: %s\n  line:     %s\n  jsonline: %s\n  jansson:  %s\n", what,
          line, a, b);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static sdb_jsonline jl = SDB_JSONLINE_INIT;
  const uint8_t *nl = memchr(data, '\n', size);   /* one line, as the readers give it */
  size_t n = nl ? (size_t)(nl - data) : size;
  char *line = malloc(n + 1);
  if (!line) return 0;
  memcpy(line, data, n);
  line[n] = '\0';
  json_error_t je, jj;
  cJSON *c = sdb_jl_parse(&jl, line, n, &je);
  json_t *j = json_loadb(line, n, 0, &jj);
  if (c && !j) die("jsonline reads what jansson refuses", line, "a tree", jj.text);
  if (!c && j) die("jsonline refuses what jansson reads", line, je.text, "a tree");
  if (!c && strcmp(je.text, jj.text)) die("the reasons differ", line, je.text, jj.text);
  if (c && !same(c, j)) die("the trees differ", line, "(tree)", "(tree)");
  json_decref(j);
  free(line);
  return 0;
}
