// The compiled part of Boost.Asio, built once here instead of inline in every
// source that includes it (BOOST_ASIO_SEPARATE_COMPILATION; target
// seragen_asio in cmake/Dependencies.cmake, linked by loop and http). Beast's
// compiled part is the scripted teacher's (teacher/beast_impl.cc).
#include <boost/asio/impl/src.hpp>
