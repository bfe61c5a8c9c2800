/*
 * libFuzzer target: the recorder's "KEY=VALUE" option handling (recorder/encode.c).
 * The input is split at NUL bytes into option strings; a string that is exactly
 * "\xff" stands for a NULL entry. Fuzzed:
 *   - split_opt(): the pure KEY=VALUE splitter, checked against an oracle;
 *   - container_dict(): the strings as container_opts -> AVDictionary, checked
 *     against the last value given per (ASCII case-insensitive) key;
 *   - apply_codec_opts(): the strings as codec_opts on an allocated, unopened
 *     encoder context (av_opt_set; FFmpeg's own code is not instrumented, so this
 *     part is mostly blind, but it is what user-given options go through).
 * split_opt, container_dict and apply_codec_opts are static, so encode.c is
 * included here (it is also built into the recorder library; this copy is private
 * to the fuzzer). Link with recorder/format.c and recorder/messages.c.
 */
#include "../../recorder/encode.c"

#include <assert.h>
#include <libavutil/avstring.h>
#include <libavutil/log.h>
#include "fuzz-util.h"

#define MAX_OPTS 64
#define ERR_LEN 48                   /* short: exercises truncated messages */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const AVCodec *codec;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	av_log_set_level(AV_LOG_QUIET);
	codec = avcodec_find_encoder_by_name("mpeg4");
	if (!codec)
		codec = avcodec_find_encoder(AV_CODEC_ID_RAWVIDEO);
	return 0;
}

static int ascii_casecmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int ca = av_toupper((unsigned char)*a), cb = av_toupper((unsigned char)*b);
		if (ca != cb || !ca)
			return ca - cb;
	}
}

static void check_err(const char *err, int ret)
{
	assert(memchr(err, '\0', ERR_LEN) != NULL);
	if (ret < 0)
		assert(strncmp(err, WBC_LOG_PREFIX, strlen(WBC_LOG_PREFIX)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_string(data, size);
	if (!buf)
		return 0;

	const char *opts[MAX_OPTS];
	char keys[MAX_OPTS][OPT_KEY_MAX];
	const char *values[MAX_OPTS];
	bool split_ok[MAX_OPTS];
	bool all_ok = true;
	size_t n = 0;
	for (char *p = buf; n < MAX_OPTS; p += strlen(p) + 1) {
		opts[n++] = strcmp(p, "\xff") == 0 ? NULL : p;
		if (p + strlen(p) == buf + size)
			break;
	}

	/* split_opt against the oracle: valid iff there is an '=' after 1..127 bytes. */
	for (size_t i = 0; i < n; i++) {
		const char *o = opts[i];
		const char *eq = o ? strchr(o, '=') : NULL;
		size_t klen = eq ? (size_t)(eq - o) : 0;
		bool expect = eq && klen > 0 && klen < OPT_KEY_MAX;
		values[i] = NULL;
		split_ok[i] = split_opt(o, keys[i], &values[i]) == 0;
		assert(split_ok[i] == expect);
		if (!split_ok[i]) {
			all_ok = false;
			continue;
		}
		assert(strlen(keys[i]) == klen && memcmp(keys[i], o, klen) == 0);
		assert(strchr(keys[i], '=') == NULL);
		assert(values[i] == eq + 1);
	}

	char err[ERR_LEN];
	struct wbc_encoder_config cfg = {
		.container_opts = opts, .n_container_opts = n,
		.codec_opts = opts, .n_codec_opts = n,
	};

	/* container_dict: the dictionary holds each key's last value. */
	AVDictionary *dict = NULL;
	memset(err, 'X', sizeof(err));
	err[ERR_LEN - 1] = '\0';
	int ret = container_dict(&cfg, &dict, err, sizeof(err));
	check_err(err, ret);
	if (!all_ok) {
		assert(ret == -EINVAL);
	} else if (ret == 0) {
		size_t distinct = 0;
		for (size_t i = 0; i < n; i++) {
			size_t last = i;
			bool first = true;
			for (size_t j = 0; j < n; j++) {
				if (ascii_casecmp(keys[i], keys[j]) == 0) {
					if (j < i)
						first = false;
					last = j;
				}
			}
			distinct += first;
			const AVDictionaryEntry *e = av_dict_get(dict, keys[i], NULL, 0);
			assert(e && strcmp(e->value, values[last]) == 0);
		}
		assert((size_t)av_dict_count(dict) == distinct);
	} else {
		assert(ret == -ENOMEM);
	}
	av_dict_free(&dict);

	/* apply_codec_opts on an unopened encoder context. */
	AVCodecContext *ctx = codec ? avcodec_alloc_context3(codec) : NULL;
	if (ctx) {
		memset(err, 'X', sizeof(err));
		err[ERR_LEN - 1] = '\0';
		ret = apply_codec_opts(ctx, &cfg, err, sizeof(err));
		check_err(err, ret);
		assert(ret == 0 || ret == -EINVAL);
		if (!all_ok)
			assert(ret == -EINVAL);
		avcodec_free_context(&ctx);
	}
	free(buf);
	return 0;
}
