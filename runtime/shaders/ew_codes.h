/* ew_codes.h - op codes of the element-wise shaders (unary.comp, binary.comp), shared by the GLSL
 * sources (specialization constant 1) and k_eltwise.c, which maps OpId -> code.  Plain integer
 * defines so that both C and GLSL can include it. */
#ifndef EW_CODES_H
#define EW_CODES_H
/* unary */
#define EWU_ABS 1
#define EWU_CEIL 2
#define EWU_COS 3
#define EWU_ERF 4
#define EWU_EXP 5
#define EWU_FLOOR 6
#define EWU_IDENTITY 7
#define EWU_LOG 8
#define EWU_NEG 9
#define EWU_RECIPROCAL 10
#define EWU_ROUND_EVEN 11
#define EWU_SIGN 12
#define EWU_SIN 13
#define EWU_SQRT 14
#define EWU_TAN 15
#define EWU_IS_NAN 16
#define EWU_IS_INFINITE 17
#define EWU_ELU 18
#define EWU_GELU 19
#define EWU_HARD_SIGMOID 20
#define EWU_HARD_SWISH 21
#define EWU_LEAKY_RELU 22
#define EWU_LINEAR 23
#define EWU_RELU 24
#define EWU_SIGMOID 25
#define EWU_SOFTPLUS 26
#define EWU_SOFTSIGN 27
#define EWU_TANH 28
#define EWU_CLAMP 29
#define EWU_LOGICAL_NOT 30
/* binary */
#define EWB_ADD 1
#define EWB_SUB 2
#define EWB_MUL 3
#define EWB_DIV 4
#define EWB_MAX 5
#define EWB_MIN 6
#define EWB_POW 7
#define EWB_PRELU 8
#define EWB_EQUAL 9
#define EWB_NOT_EQUAL 10
#define EWB_GREATER 11
#define EWB_GREATER_OR_EQUAL 12
#define EWB_LESSER 13
#define EWB_LESSER_OR_EQUAL 14
#define EWB_LOGICAL_AND 15
#define EWB_LOGICAL_OR 16
#define EWB_LOGICAL_XOR 17
#endif
