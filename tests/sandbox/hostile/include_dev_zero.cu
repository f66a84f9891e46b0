// The preprocessor reads an endless file.
#include "/dev/zero"
__global__ void k() {}
