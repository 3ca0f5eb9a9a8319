/* nb_version.h — the version printed in the banner and by tools/nanobench. */
#ifndef NB_VERSION_H
#define NB_VERSION_H
#define NB_VERSION "0.1.0"
#endif
