-- privrisk 0.8 -> 0.9: the extension as an attack surface. Built by the Makefile
-- from the fragments in extension/0.9/, one per concern, in name order.
\echo Use "ALTER EXTENSION privrisk UPDATE TO '0.9'" to load this file. \quit
