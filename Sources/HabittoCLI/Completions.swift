/// Shell completion scripts, generated from the command table (`Specs.all`, the one the
/// help and the parser read): a command, option or value added there completes without
/// editing anything here. Habit and theme names are read at completion time through
/// `habitto __complete habits|themes|devices`, one name a line, and each shell inserts a name
/// escaped for the quoting it lands in (none, `'…'` or `"…"`): a name, which another
/// device may have chosen, is never run as a command.
enum Completions {
    /// The script for `shell` (bash, zsh or fish), or nil for another shell. Hidden
    /// commands are left out.
    static func script(_ shell: String, specs: [CommandSpec], globals: [OptionSpec]) -> String? {
        let visible = specs.filter { !$0.hidden }
        switch shell {
        case "bash": return header("bash", load: "source <(habitto completions bash)") + tables(visible, globals) + bashDriver
        case "zsh": return "#compdef habitto\n" + header("zsh", load: "save as _habitto in a directory of $fpath")
            + tables(visible, globals) + zshCommands(visible) + zshDriver
        case "fish": return header("fish", load: "save as ~/.config/fish/completions/habitto.fish") + fish(visible, globals)
        default: return nil
        }
    }

    private static func header(_ shell: String, load: String) -> String {
        "# \(shell) completion for habitto, generated from its command table by 'habitto completions \(shell)'.\n# To load it: \(load)\n\n"
    }

    /// A word in POSIX single quotes (bash and zsh).
    static func quoted(_ s: String) -> String { "'" + s.replacingAll("'", with: "'\\''") + "'" }

    /// A value's kind as the scripts read it: `w:WORDS`, `h` habit, `t` theme, `v` device, `f` file,
    /// `d` directory, `-` anything.
    static func code(_ kind: ValueKind) -> String {
        switch kind {
        case .free: return "-"
        case .words(let w): return "w:" + w.joined(separator: " ")
        case .habit: return "h"
        case .theme: return "t"
        case .device: return "v"
        case .file: return "f"
        case .directory: return "d"
        }
    }

    /// The case tables bash and zsh share: commands, each command's options, the kind of
    /// each option's value, and the kind of each positional argument.
    static func tables(_ specs: [CommandSpec], _ globals: [OptionSpec]) -> String {
        let everywhere = globals.filter { $0.name != "--theme" && $0.name != "--version" }
        var s = "_habitto_commands=\(quoted(specs.map(\.name).joined(separator: " ")))\n"
        s += "_habitto_globals=\(quoted(globals.map(\.name).joined(separator: " ")))\n\n"
        s += "# A command's options, in REPLY.\n_habitto_options() {\n    case $1 in\n"
        for c in specs {
            s += "        \(c.name)) REPLY=\(quoted((c.options + everywhere).map(\.name).joined(separator: " ")));;\n"
        }
        s += "        *) REPLY=\(quoted(everywhere.map(\.name).joined(separator: " ")));;\n    esac\n}\n\n"
        s += "# The kind of the value of option $2 of command $1, in REPLY: w:WORDS, h habit, t theme, v device, f file,\n"
        s += "# d directory, - anything. Status 1 when the option takes no value.\n_habitto_value() {\n    case $1/$2 in\n"
        for o in globals where o.value != nil { s += "        */\(o.name)) REPLY=\(quoted(code(o.completes)));;\n" }
        for c in specs {
            for o in c.options where o.value != nil { s += "        \(c.name)/\(o.name)) REPLY=\(quoted(code(o.completes)));;\n" }
        }
        s += "        *) return 1;;\n    esac\n}\n\n"
        s += "# The kind of positional argument $2 (from 0) of command $1, in REPLY.\n_habitto_argument() {\n    case $1/$2 in\n"
        for c in specs {
            for (i, a) in (c.arguments + c.optionalArguments).enumerated() {
                let kind = ValueKind.of(placeholder: a)
                if kind != .free { s += "        \(c.name)/\(i)) REPLY=\(quoted(code(kind)));;\n" }
            }
        }
        s += "        *) return 1;;\n    esac\n}\n\n"
        return s
    }

    static let bashDriver = #"""
    # Names from 'habitto __complete habits|themes' that start with the word being completed,
    # each written so that the shell reads it back as that name and nothing else. $2 is the
    # word as typed (from COMP_WORDS), $3 its end that readline replaces: after an opening
    # quote, what follows the quote, and the name is escaped for that quote.
    _habitto_names() {
        local what=$1 word=$2 text=$3 quote= c value= typed= context= name rest out
        local -i i=0 cut found=0
        [[ $word == *"$text" ]] || return 0
        cut=$(( ${#word} - ${#text} ))
        # The word as the shell reads it (quotes removed, backslashes applied), and the
        # quote readline's text starts in.
        while (( i <= ${#word} )); do
            (( i == cut )) && { typed=$value; context=$quote; found=1; }
            (( i == ${#word} )) && break
            c=${word:i:1}
            i+=1
            case $quote$c in
                \'\'|\"\") quote=;;
                \'?) value+=$c;;
                \"\\) if [[ ${word:i:1} == [\\\$\`\"] ]]; then value+=${word:i:1}; i+=1; else value+=$c; fi;;
                \"?) value+=$c;;
                \'|\") quote=$c;;
                \\) value+=${word:i:1}; i+=1;;
                *) value+=$c;;
            esac
        done
        (( found )) || return 0
        local -a names
        mapfile -t names < <("${_habitto_cmd[@]}" __complete "$what" 2>/dev/null)
        for name in "${names[@]}"; do
            [[ $name == "$value"* ]] || continue
            rest=${name:${#typed}}
            out=
            case $context in
                \')
                    for (( i = 0; i < ${#rest}; i++ )); do
                        c=${rest:i:1}
                        if [[ $c == \' ]]; then out+="'\''"; else out+=$c; fi
                    done;;
                \")
                    # ! is history expansion even inside double quotes: it goes outside them.
                    for (( i = 0; i < ${#rest}; i++ )); do
                        c=${rest:i:1}
                        case $c in
                            [\\\$\`\"]) out+=\\$c;;
                            !) out+='"\!"';;
                            *) out+=$c;;
                        esac
                    done;;
                *) [[ -z $rest ]] || printf -v out %q "$rest";;
            esac
            if [[ -n $context ]]; then
                # readline closes the quote after the only match, unless the character
                # before the cursor is the quote character (the last one inserted, or the
                # opening quote when nothing is): then the script closes it.
                [[ -z $out || $out == *"$context" ]] && out+=$context
                # A match that starts with the quote character replaces the opening quote.
                [[ $out == "$context"* ]] && out=$context$out
            fi
            COMPREPLY+=("$out")
        done
    }

    # Completes a value of kind $1; $2 is the word as typed, $3 the text readline replaces.
    _habitto_reply() {
        local kind=$1 cur=$2
        case $kind in
            w:*) COMPREPLY=($(compgen -W "${kind#w:}" -- "$cur"));;
            h) _habitto_names habits "$cur" "$3";;
            t) _habitto_names themes "$cur" "$3";;
            v) _habitto_names devices "$cur" "$3";;
            f) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur"));;
            d) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur"));;
        esac
    }

    _habitto() {
        COMPREPLY=()
        local cur=${COMP_WORDS[COMP_CWORD]} text=$2 cmd= word opt= ended= REPLY
        local -i i=1 n=0
        local -a _habitto_cmd=("${COMP_WORDS[0]}")
        # bash splits --option=value at the '='.
        [[ $cur == = ]] && cur=
        while (( i < COMP_CWORD )); do
            word=${COMP_WORDS[i]}
            # After --, every word is an argument (a habit name may start with -).
            if [[ -z $ended && $word == -- ]]; then
                ended=1
            elif [[ -z $ended && $word == -* ]]; then
                if _habitto_value "$cmd" "$word"; then
                    [[ ${COMP_WORDS[i+1]} == = ]] && i+=1
                    i+=1
                    if (( i >= COMP_CWORD )); then
                        opt=$word
                    elif [[ $word == --home ]]; then
                        _habitto_cmd+=(--home "${COMP_WORDS[i]/#\~/$HOME}")
                    fi
                fi
            elif [[ -z $cmd ]]; then
                cmd=$word
            else
                n+=1
            fi
            i+=1
        done
        if [[ -n $opt ]]; then
            _habitto_value "$cmd" "$opt" && _habitto_reply "$REPLY" "$cur" "$text"
        elif [[ -z $ended && $cur == -* ]]; then
            if [[ -z $cmd ]]; then REPLY=$_habitto_globals; else _habitto_options "$cmd"; fi
            COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
        elif [[ -z $cmd ]]; then
            COMPREPLY=($(compgen -W "$_habitto_commands" -- "$cur"))
        elif _habitto_argument "$cmd" "$n"; then
            _habitto_reply "$REPLY" "$cur" "$text"
        fi
    }

    complete -F _habitto habitto

    """#

    static func zshCommands(_ specs: [CommandSpec]) -> String {
        "_habitto_described=(\n" + specs.map { "    " + quoted("\($0.name):\($0.summary)") }.joined(separator: "\n") + "\n)\n\n"
    }

    static let zshDriver = #"""
    # compadd without -Q quotes each name for the quoting the cursor is in.
    _habitto_reply() {
        local -a items
        case $1 in
            w:*) items=(${=${1#w:}}); compadd -a items;;
            h) items=(${(f)"$($_habitto_cmd __complete habits 2>/dev/null)"}); compadd -a items;;
            t) items=(${(f)"$($_habitto_cmd __complete themes 2>/dev/null)"}); compadd -a items;;
            v) items=(${(f)"$($_habitto_cmd __complete devices 2>/dev/null)"}); compadd -a items;;
            f) _files;;
            d) _files -/;;
            *) _message 'a value';;
        esac
    }

    _habitto() {
        local cur=${words[CURRENT]} cmd= word opt= ended= REPLY
        local -i i=2 n=0
        local -a _habitto_cmd
        _habitto_cmd=(${words[1]})
        while (( i < CURRENT )); do
            word=${words[i]}
            # After --, every word is an argument (a habit name may start with -).
            if [[ -z $ended && $word == -- ]]; then
                ended=1
            elif [[ -z $ended && $word == --*=* ]]; then
                :
            elif [[ -z $ended && $word == -* ]]; then
                if _habitto_value "$cmd" "$word"; then
                    (( i++ ))
                    if (( i >= CURRENT )); then
                        opt=$word
                    elif [[ $word == --home ]]; then
                        _habitto_cmd+=(--home ${~words[i]})
                    fi
                fi
            elif [[ -z $cmd ]]; then
                cmd=$word
            else
                (( n++ ))
            fi
            (( i++ ))
        done
        if [[ -z $opt && -z $ended && $cur == --*=* ]]; then
            opt=${cur%%=*}
            compset -P '*='
        fi
        local -a items
        if [[ -n $opt ]]; then
            _habitto_value "$cmd" "$opt" && _habitto_reply "$REPLY"
        elif [[ -z $ended && $cur == -* ]]; then
            if [[ -z $cmd ]]; then REPLY=$_habitto_globals; else _habitto_options "$cmd"; fi
            items=(${=REPLY})
            compadd -a items
        elif [[ -z $cmd ]]; then
            _describe command _habitto_described
        elif _habitto_argument "$cmd" "$n"; then
            _habitto_reply "$REPLY"
        fi
    }

    _habitto "$@"

    """#

    /// A word in fish's single quotes.
    static func fishQuoted(_ s: String) -> String {
        "'" + s.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'") + "'"
    }

    /// fish's `complete` arguments that complete a value of `kind`.
    static func fishValue(_ kind: ValueKind) -> String {
        switch kind {
        case .free: return "-x"
        case .words(let w): return "-x -a " + fishQuoted(w.joined(separator: " "))
        case .habit: return "-x -a '(__habitto_names habits)'"
        case .theme: return "-x -a '(__habitto_names themes)'"
        case .device: return "-x -a '(__habitto_names devices)'"
        case .file: return "-r -F"
        case .directory: return "-x -a '(__fish_complete_directories)'"
        }
    }

    static func fish(_ specs: [CommandSpec], _ globals: [OptionSpec]) -> String {
        var s = """
        # Names from 'habitto __complete habits|themes', read from the data directory of --home when given;
        # fish escapes each one for the quoting the cursor is in.
        function __habitto_names
            set -l tokens (commandline -opc)
            set -l args
            set -l i (contains -i -- --home $tokens)
            and set args --home $tokens[(math $i + 1)]
            command $tokens[1] $args __complete $argv 2>/dev/null
        end

        complete -c habitto -f

        """
        for o in globals {
            s += "complete -c habitto -l \(o.name.dropFirst(2))\(o.value != nil ? " " + fishValue(o.completes) : "") -d \(fishQuoted(o.help))\n"
        }
        for c in specs {
            s += "complete -c habitto -n __fish_use_subcommand -a \(c.name) -d \(fishQuoted(c.summary))\n"
        }
        for c in specs {
            let when = "-n " + fishQuoted("__fish_seen_subcommand_from \(c.name)")
            for o in c.options {
                s += "complete -c habitto \(when) -l \(o.name.dropFirst(2))\(o.value != nil ? " " + fishValue(o.completes) : "") -d \(fishQuoted(o.help))\n"
            }
            // fish does not count positions: a command's positional values are offered at each.
            for a in c.arguments + c.optionalArguments {
                let kind = ValueKind.of(placeholder: a)
                if kind != .free { s += "complete -c habitto \(when) \(fishValue(kind).replacingAll("-x ", with: ""))\n" }
            }
        }
        return s
    }
}
