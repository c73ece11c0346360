// The compiled parts of Boost.Asio and Boost.Beast, built once here instead of
// inline in every source that includes them (BOOST_ASIO_SEPARATE_COMPILATION,
// BOOST_BEAST_SEPARATE_COMPILATION; see cmake/Dependencies.cmake).
#include <boost/asio/impl/src.hpp>
#include <boost/beast/src.hpp>
