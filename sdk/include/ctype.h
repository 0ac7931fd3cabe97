/* q7 SDK: <ctype.h> for the "C" locale (ASCII). */
#ifndef Q7_CTYPE_H
#define Q7_CTYPE_H

#include <q7/cdefs.h>

Q7_BEGIN_C
int isdigit(int c) Q7_NOEXCEPT;
int isxdigit(int c) Q7_NOEXCEPT;
int isalpha(int c) Q7_NOEXCEPT;
int isalnum(int c) Q7_NOEXCEPT;
int isspace(int c) Q7_NOEXCEPT;
int isupper(int c) Q7_NOEXCEPT;
int islower(int c) Q7_NOEXCEPT;
int isprint(int c) Q7_NOEXCEPT;
int ispunct(int c) Q7_NOEXCEPT;
int iscntrl(int c) Q7_NOEXCEPT;
int toupper(int c) Q7_NOEXCEPT;
int tolower(int c) Q7_NOEXCEPT;
Q7_END_C

#endif
