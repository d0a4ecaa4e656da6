// The module is its header (include/CVarselEpoll.h); a C target needs one source file.
#include "CVarselEpoll.h"
