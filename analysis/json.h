/* Minimal JSON tree: enough to build metrics, read --extra-metrics and write result files. */
#ifndef DPLAB_JSON_H
#define DPLAB_JSON_H

#include <stdio.h>
#include <stddef.h>

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_OBJ, J_ARR };

struct jval {
	enum jtype t;
	int b;
	double num;
	char *str;
	/* objects keep insertion order so the output reads like the code that built it */
	char **keys;
	struct jval **kids;
	size_t n, cap;
};

struct jval *j_null(void);
struct jval *j_bool(int b);
struct jval *j_num(double d);
struct jval *j_str(const char *s);
struct jval *j_obj(void);
struct jval *j_arr(void);

/* j_set replaces an existing key; both take ownership of v. */
void j_set(struct jval *obj, const char *key, struct jval *v);
void j_push(struct jval *arr, struct jval *v);
struct jval *j_get(const struct jval *obj, const char *key);
/* "a.b.c" through nested objects; NULL when any step is missing. */
struct jval *j_path(const struct jval *root, const char *path);
/* obj[key] as an object, created when absent. */
struct jval *j_child(struct jval *obj, const char *key);

void j_write(FILE *f, const struct jval *v, int indent);
/* Parses a whole document; on error returns NULL and a message in err. */
struct jval *j_parse(const char *text, char *err, size_t errlen);
void j_free(struct jval *v);

#endif
