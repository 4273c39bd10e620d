// libpq, PostgreSQL's client library (Debian: libpq-dev). Debian puts its headers in a folder of
// their own; naming it here needs no pkg-config.
#include <postgresql/libpq-fe.h>
