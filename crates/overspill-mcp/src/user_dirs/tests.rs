use super::*;

#[cfg(target_os = "linux")]
#[test]
fn linux_follows_the_xdg_variables_and_home() {
    // Read only: the variables of this process are whatever the test runner has.
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|path| path.is_absolute())
    };
    if let Some(home) = home {
        let state = xdg("XDG_STATE_HOME").unwrap_or_else(|| home.join(".local/state"));
        assert_eq!(state_dir(), Some(state.join("overspill")));
        let config = xdg("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config"));
        assert_eq!(config_dir(), Some(config.join("overspill")));
        assert_eq!(platform_config_dir(), Some(config));
        assert_eq!(home_dir(), Some(home));
    }
}
