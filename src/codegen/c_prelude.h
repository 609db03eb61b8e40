// codegen/c_prelude.h — the fixed head of every C translation unit the C backend writes: headers,
// the STP_WIDE* target macros, the numeric helpers (c_numeric_prelude), the interpreter's exp and
// log, the libmvec declarations of log and erf, streaming stores, OpenMP's NaN-propagating max/min
// reductions, and steptp_set_threads with the thread count the kernel's branches read.
#pragma once

#include <string>

namespace steptp::codegen {

std::string c_kernel_prelude();

}  // namespace steptp::codegen
