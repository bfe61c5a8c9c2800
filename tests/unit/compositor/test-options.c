/* wbc_options_parse's word choices: each word sets its value, any other word (or none)
 * is refused. The messages themselves are wbc-cli.sh's: the binary's stderr. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "options.h"

/* wbc OPTION [WORD] -- app (argv is static: the options borrow its strings). */
static enum wbc_parse_result parse(struct wbc_options *o, const char *option, const char *word)
{
	static char *argv[6];
	int argc = 0;
	argv[argc++] = "wbc";
	argv[argc++] = (char *)option;
	if (word)
		argv[argc++] = (char *)word;
	argv[argc++] = "--";
	argv[argc++] = "app";
	argv[argc] = NULL;
	return wbc_options_parse(argc, argv, o);
}

struct choice_case {
	const char *option, *word;
	int want;
};

static int value_of(const struct wbc_options *o, const char *option)
{
	if (strcmp(option, "--outputs") == 0)
		return (int)o->outputs;
	if (strcmp(option, "--rotate") == 0)
		return o->rotate;
	if (strcmp(option, "--capture") == 0)
		return (int)o->capture;
	if (strcmp(option, "--renderer") == 0)
		return (int)o->renderer;
	return (int)o->pacing;
}

static void each_word_sets_its_value(void **state)
{
	static const struct choice_case cases[] = {
		{ "--outputs", "extend", WBC_OUTPUTS_EXTEND },
		{ "--outputs", "mirror", WBC_OUTPUTS_MIRROR },
		{ "--outputs", "last", WBC_OUTPUTS_LAST },
		{ "--rotate", "0", 0 }, { "--rotate", "90", 90 },
		{ "--rotate", "180", 180 }, { "--rotate", "270", 270 },
		{ "--capture", "auto", WBC_CAPTURE_AUTO },
		{ "--capture", "writeback", WBC_CAPTURE_FORCE_WRITEBACK },
		{ "--capture", "readback", WBC_CAPTURE_FORCE_READBACK },
		{ "--renderer", "auto", WBC_RENDERER_AUTO },
		{ "--renderer", "gles2", WBC_RENDERER_GLES2 },
		{ "--renderer", "pixman", WBC_RENDERER_PIXMAN },
		{ "--writeback-pacing", "wait", WBC_PACING_WAIT },
		{ "--writeback-pacing", "skip", WBC_PACING_SKIP },
		{ "--writeback-pacing", "deadline", WBC_PACING_DEADLINE },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wbc_options o;
		print_message("%s %s\n", cases[i].option, cases[i].word);
		assert_int_equal(parse(&o, cases[i].option, cases[i].word), WBC_PARSE_OK);
		assert_int_equal(value_of(&o, cases[i].option), cases[i].want);
		assert_string_equal(o.app_argv[0], "app");
	}
}

/* A word of another option, a prefix, a different case and no word at all. */
static void other_words_are_refused(void **state)
{
	static const char *const options[] = {
		"--outputs", "--rotate", "--capture", "--renderer", "--writeback-pacing",
	};
	static const char *const words[] = { "wait", "mirro", "AUTO", "45", "", NULL };
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		for (size_t j = 0; j < sizeof(words) / sizeof(words[0]); j++) {
			if (strcmp(options[i], "--writeback-pacing") == 0 && words[j] &&
					strcmp(words[j], "wait") == 0)
				continue;
			struct wbc_options o;
			assert_int_equal(parse(&o, options[i], words[j]), WBC_PARSE_ERROR);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_word_sets_its_value),
		cmocka_unit_test(other_words_are_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
