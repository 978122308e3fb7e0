// SPDX-License-Identifier: MIT
/* A stand-in for fstests' src/ helpers (lstat64, xfsctl, ...): a C program
 * the tests call, built with the tree. Prints the C library it runs on. */
#include <gnu/libc-version.h>
#include <stdio.h>

int main(void)
{
	printf("fake-helper: glibc %s\n", gnu_get_libc_version());
	return 0;
}
