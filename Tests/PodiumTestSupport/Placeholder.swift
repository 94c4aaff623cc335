public enum PlaceholderSupport {}
