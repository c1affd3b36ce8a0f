/* generate_text.h - text in, text out for `webnnc generate --prompt` (generate_text.c): the model
 * folder's tokenizer (tokenizer.json + tokenizer_config.json) encodes the prompt with its special
 * tokens (BOS per tokenizer_config), the generated ids stream out as text (text_stream.h), and
 * generation stops at any eos id of the folder's genai_config.json (model.eos_token_id). */
#ifndef WEBNNC_CLI_GENERATE_TEXT_H
#define WEBNNC_CLI_GENERATE_TEXT_H

#include <stdio.h>

#include "decoder.h"
#include "onnx.h"
#include "text_stream.h"
#include "tokenizer.h"

typedef struct {
    Tokenizer *tok;
    TextStream stream;
    int n_eos;
    int32_t eos[GENAI_MAX_EOS];
    int64_t *tokens; /* the decoder's token array */
    int n_prompt;
} GenerateText;

/* Loads the tokenizer and the eos ids of the folder of model_path (the path itself when it is a
 * folder); text goes to out (NULL: collected only).  0, or -1 + diagnostic naming the file. */
int generate_text_open(GenerateText *gt, const char *model_path, FILE *out);
/* Encodes the prompt into tokens[0 ..]; returns the count, or -1 + diagnostic. */
int generate_text_encode(GenerateText *gt, const char *prompt, int64_t *tokens, int max);
/* Decoder.on_step (Decoder.user = the GenerateText): streams the new token's text; 1 at an eos id. */
int generate_text_on_step(Decoder *d, long long k, double begin_s, double end_s);
void generate_text_close(GenerateText *gt);

#endif
