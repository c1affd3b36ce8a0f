/* bindings.h - the descriptor layout every kernel shares, included by runtime/kernel.h (C) and
 * shaders/common.glsl (GLSL) so that both read the numbers from one place: tensor bindings
 * 0 .. K_MAX_BINDINGS - 1, then the parameter block (common.glsl PARAMS_BLOCK). */
#ifndef WEBNNC_SHADER_BINDINGS_H
#define WEBNNC_SHADER_BINDINGS_H

#define K_MAX_BINDINGS 20               /* tensor bindings 0..19 (ext_gqa_dec_oproj.comp uses 0..18) */
#define K_PARAMS_BINDING K_MAX_BINDINGS /* the parameter block: a uniform buffer */

#endif
