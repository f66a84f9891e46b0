// Compile bomb: every level instantiates two distinct templates of the level below, so the
// compiler's work doubles per level (2^40 instantiations).
template <int N, int K> struct Bomb {
    static constexpr long value = Bomb<N - 1, 2 * K>::value + Bomb<N - 1, 2 * K + 1>::value;
};
template <int K> struct Bomb<0, K> { static constexpr long value = K; };
__global__ void kernel(long* out) { *out = Bomb<40, 0>::value; }
