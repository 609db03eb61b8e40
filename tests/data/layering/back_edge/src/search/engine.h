#include "leir/ir.h"
