// Linux's epoll, for the live streams' sockets (VarselLive's StreamSockets): Swift's Glibc module leaves it out.
#if defined(__linux__)
#include <sys/epoll.h>
#endif
