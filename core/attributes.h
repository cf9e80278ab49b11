/*
 * attributes.h - compiler attributes every layer uses.
 *
 * It sits in core/ because core/ is the layer everything else may include;
 * it holds no rules.
 */
#ifndef CORE_ATTRIBUTES_H
#define CORE_ATTRIBUTES_H

/* Marks a function whose result says whether it failed: the caller must look at it. */
#define MUST_USE __attribute__((warn_unused_result))

#endif
