#!/usr/bin/env bash
# Build var/nltk_data/corpora/wordnet from Debian's wordnet-base so that NLTK's WordNet
# reader works offline with NLTK_DATA=var/nltk_data (nothing is ever downloaded).
#
# Debian ships the WordNet 3.0 database in /usr/share/wordnet but not `lexnames`, which
# NLTK's WordNetCorpusReader opens first; it is the fixed table of the 45 lexicographer
# files of WordNet 3.0 (lexnames(5WN)), written here. `index.sense` comes from the optional
# Debian package wordnet-sense-index and is linked when present (only sense-key look-ups
# need it).

# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SRC="${WORDNET_SOURCE:-/usr/share/wordnet}"
DEST="$VAR/nltk_data/corpora/wordnet"
FILES=(cntlist.rev index.adj index.adv index.noun index.verb data.adj data.adv data.noun
    data.verb adj.exc adv.exc noun.exc verb.exc)

write_lexnames() {
    local names=(adj.all:3 adj.pert:3 adv.all:4 noun.Tops:1 noun.act:1 noun.animal:1
        noun.artifact:1 noun.attribute:1 noun.body:1 noun.cognition:1 noun.communication:1
        noun.event:1 noun.feeling:1 noun.food:1 noun.group:1 noun.location:1 noun.motive:1
        noun.object:1 noun.person:1 noun.phenomenon:1 noun.plant:1 noun.possession:1
        noun.process:1 noun.quantity:1 noun.relation:1 noun.shape:1 noun.state:1
        noun.substance:1 noun.time:1 verb.body:2 verb.change:2 verb.cognition:2
        verb.communication:2 verb.competition:2 verb.consumption:2 verb.contact:2
        verb.creation:2 verb.emotion:2 verb.motion:2 verb.perception:2 verb.possession:2
        verb.social:2 verb.stative:2 verb.weather:2 adj.ppl:3)
    local i
    for i in "${!names[@]}"; do
        printf '%02d\t%s\t%s\n' "$i" "${names[$i]%%:*}" "${names[$i]##*:}"
    done >"$DEST/lexnames"
}

main() {
    local f
    for f in "${FILES[@]}"; do
        [ -f "$SRC/$f" ] || die "$SRC/$f missing (install the Debian package wordnet-base)"
    done
    mkdir -p "$DEST"
    # Copies, not symlinks: NLTK (nltk.pathsec) refuses files whose real path leaves the
    # corpus root. `cp -u` copies only what is missing or older (~28 MB once).
    local extra=()
    [ -f "$SRC/index.sense" ] && extra+=(index.sense)
    [ -f "$SRC/lexnames" ] && extra+=(lexnames)
    for f in "${FILES[@]}" "${extra[@]}"; do
        if [ -L "$DEST/$f" ]; then rm -f "$DEST/$f"; fi
        cp -u "$SRC/$f" "$DEST/$f"
    done
    [ -f "$SRC/lexnames" ] || write_lexnames
    log "WordNet for NLTK ready in $DEST"
}

main "$@"
