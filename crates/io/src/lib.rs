//! Reading prediction files into calibscope prediction sets (see issue 3).
