-- copydetect 1.0 (documents/pgext/copydetect.c)
\echo Use "CREATE EXTENSION copydetect" to load this file. \quit

CREATE FUNCTION copydetect_posting_pack_step(internal, bigint, bigint) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION copydetect_posting_pack_final(internal) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

-- (feature, ref) of its rows as one bytea: 16 bytes a row, big-endian, in arrival order.
CREATE AGGREGATE posting_pack(bigint, bigint) (
    SFUNC = copydetect_posting_pack_step,
    STYPE = internal,
    FINALFUNC = copydetect_posting_pack_final,
    PARALLEL = SAFE
);
