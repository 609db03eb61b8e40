// The back edge: the IR reaches up into search.
#include "search/engine.h"
